// Two kernels of arrow functions in one module, recorded by the plugin and
// built ahead of time: each is named after the const it is assigned to (the
// record's `binding`, which a minifier's renaming does not change), and
// neither the records nor the artifact hold a path of the build machine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildKernelArtifact, type JitKernel } from '@cuda-js/jit';
import { describeWhen, ptxasMissing } from '@cuda-js/test-support/toolchain';
import { afterAll, expect, it } from 'vitest';
import { nvvmMissing } from './aot-app.test-support.js';
import { findKernels } from './find-kernels.js';

const MODULE = `import { array, cuda, f32, jit } from '@cuda-js/jit';
const SIG = [[f32, array(f32, 1), array(f32, 1)]];
export const saxpy = jit((a, x, y) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i] + y[i];
}, { signatures: SIG });
export const scale = jit((a, x, y) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i];
}, { signatures: SIG });
`;

// inside the package, so that the module's imports resolve as the tests' do
const root = join(import.meta.dirname, '..', 'fixtures', '.out-names');
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(join(root, 'app-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWhen(
  [nvvmMissing, ptxasMissing],
  'two unnamed kernels of one module, built with the records of the plugin',
  () => {
    it('are named after their consts, and no path of the build machine is in the records or the artifact', async () => {
      const file = join(dir, 'src', 'kernels.js');
      const found = findKernels(MODULE, file, { root: dir })!;
      expect(found.records.map((r) => [r.binding, r.file])).toEqual([
        ['saxpy', 'src/kernels.js'],
        ['scale', 'src/kernels.js'],
      ]);
      expect(found.kernelNames).toEqual(['saxpy', 'scale']);
      expect(found.code).not.toContain(dir);
      // a minifier renames the consts: the records keep the names as written
      const renamed = found.code
        .replace('export const saxpy =', 'export const a =')
        .replace('export const scale =', 'export const b =');
      mkdirSync(join(dir, 'out'), { recursive: true });
      const bundle = join(dir, 'out', 'bundle.js');
      writeFileSync(bundle, renamed);
      const module = (await import(/* @vite-ignore */ pathToFileURL(bundle).href)) as { a: JitKernel; b: JitKernel };
      expect([module.a.name, module.b.name]).toEqual(['saxpy', 'scale']);
      const artifact = buildKernelArtifact([module.a, module.b], { arch: ['sm_90'], ptx: false });
      expect(artifact.kernels.map((k) => [k.name, k.definedAt])).toEqual([
        ['saxpy', 'src/kernels.js:3:26'],
        ['scale', 'src/kernels.js:7:26'],
      ]);
      expect(JSON.stringify(artifact.kernels.map(({ specializations: _, ...k }) => k))).not.toContain(dir);
    });
  },
);
