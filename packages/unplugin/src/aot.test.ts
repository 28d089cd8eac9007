// The plugin's aot option: the fixture app (fixtures/aot-app, kernels with
// declared signatures) bundled and minified by esbuild, vite, rolldown,
// webpack and rspack with `aot: { arch: ['sm_80', 'sm_90'] }` gets its
// kernels compiled at build time (libNVVM and ptxas here, no GPU): the
// artifact is emitted as assets (cubins for both architectures, PTX of the
// newest) and embedded in the bundle, which then runs in a process where
// libNVVM is hidden, answering launches from the artifact with nothing typed
// or lowered. Results are checked in the simulator (on a GPU:
// aot.gpu.test.ts). Needs the packages built (dist/), as CI does first.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describeWhen, HIDE_NVVM, ptxasMissing } from '@cuda-js/test-support/toolchain';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  AOT_BUNDLERS as BUNDLERS,
  AOT_OUT as out,
  buildAotApp,
  expectedResults,
  nvvmMissing,
  type Outcome,
  runAotApp,
} from './aot-app.test-support.js';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import type { CudaJsAotOptions } from './plugin-options.js';

const AOT: CudaJsAotOptions = { arch: ['sm_80', 'sm_90'], assets: 'kernels-aot' };
const AXPY = "f32, array(f32, 1, 'C'), array(f32, 1, 'C')";

interface Manifest {
  jitVersion: string;
  kernels: {
    name: string;
    specializations: { signature: string; code: { kind: string; arch: string; file: string; bytes: number }[] }[];
  }[];
}

describeWhen(
  [nvvmMissing, ptxasMissing],
  "the plugin's aot option: kernels built with the app, run without libNVVM",
  () => {
    const built = new Map<string, { file: string; dir: string }>();
    const outcomes = new Map<string, Outcome>();

    beforeAll(async () => {
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      for (const bundler of BUNDLERS) built.set(bundler, await buildAotApp(bundler, AOT));
      // libNVVM hidden, in the simulator (no GPU here)
      for (const [bundler, b] of built)
        outcomes.set(bundler, runAotApp(b.file, { ...HIDE_NVVM, CUDA_JS_SIMULATOR: '1' }));
    }, 180_000);

    afterAll(() => rmSync(out, { recursive: true, force: true }));

    it.each(BUNDLERS)(
      '%s: emits the artifact as assets, cubins for sm_80 and sm_90 and PTX of compute_90',
      (bundler) => {
        const folder = join(built.get(bundler)!.dir, 'kernels-aot', 'kernels');
        const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as Manifest;
        expect(manifest.kernels.map((k) => k.name).sort()).toEqual(['axpy', 'sumOfSquares']);
        for (const k of manifest.kernels) {
          expect(k.specializations).toHaveLength(1);
          const code = k.specializations[0]!.code;
          expect(code.map((c) => `${c.kind} ${c.arch}`)).toEqual(['cubin sm_80', 'cubin sm_90', 'ptx compute_90']);
          for (const c of code) {
            const data = readFileSync(join(folder, c.file));
            expect(data.byteLength, c.file).toBe(c.bytes);
            // a cubin is an ELF file; the PTX names its target
            if (c.kind === 'cubin') expect(data.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
            else expect(data.toString('utf8')).toMatch(/\.target sm_90\b/);
          }
        }
        expect(manifest.kernels.find((k) => k.name === 'axpy')?.specializations[0]?.signature).toBe(AXPY);
        expect(existsSync(join(folder, 'kernels.js'))).toBe(true);
      },
    );

    it.each(BUNDLERS)(
      '%s: embeds the artifact, loaded before the kernels run; covered launches need no typing, lowering or libNVVM',
      (bundler) => {
        const o = outcomes.get(bundler);
        expect(o?.failed).toBeUndefined();
        // hidden for real: libNVVM cannot be loaded in the app's process
        expect(o?.nvvm).toBe('LibraryNotFoundError');
        expect(o?.artifacts).toEqual([['axpy', 'sumOfSquares']]);
        expect(o?.answers?.['sm_90']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'axpy' });
        // an older minor of the major runs on sm_86; a newer device takes the PTX
        expect(o?.answers?.['sm_86']).toMatchObject({ kind: 'cubin', arch: 'sm_80' });
        expect(o?.answers?.['sm_100']).toMatchObject({ kind: 'ptx', arch: 'compute_90' });
        expect(o?.answers?.['sumOfSquares']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'sumOfSquares' });
        expect([o?.typed, o?.lowered]).toEqual([0, 0]);
      },
    );

    it.each(BUNDLERS)(
      '%s: an architecture the build does not cover is a KernelNotBuiltError that lists what was built (libNVVM hidden)',
      (bundler) => {
        const answer = outcomes.get(bundler)?.answers?.['sm_75'];
        expect(answer?.error).toBe('KernelNotBuiltError');
        expect(answer?.message).toContain(`axpy(${AXPY}): cubin sm_80, sm_90; PTX compute_90`);
        expect(answer?.message).toContain('LibraryNotFoundError');
      },
    );

    it.each(BUNDLERS)('%s: the kernels give the right results (simulator)', (bundler) => {
      const o = outcomes.get(bundler);
      const want = expectedResults();
      for (const [kernel, values] of Object.entries(want)) {
        expect(o?.results?.[kernel]?.length, kernel).toBe(values.length);
        o?.results?.[kernel]?.forEach((v, i) => expect(v, `${kernel}[${i}]`).toBeCloseTo(values[i]!, 3));
      }
      expect(o?.origins).toEqual({ axpy: ['simulator'], sumOfSquares: ['simulator'] });
    });

    it("fails the build with the JIT's error where a declared signature does not type, naming the kernel", async () => {
      const dir = join(out, 'untyped');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'kernels.ts');
      writeFileSync(
        file,
        `import { array, cuda, f32, jit } from 'cuda-js';\nexport const wrong = jit((x: Float32Array) => { x[cuda.grid(1)] = 1; }, { name: 'wrong', signatures: [[f32]] });\n`,
      );
      const failure = await esbuild
        .build({
          entryPoints: [file],
          bundle: true,
          platform: 'node',
          format: 'esm',
          write: false,
          logLevel: 'silent',
          external: ['cuda-js'],
          plugins: [cudaJsPlugin.esbuild({ aot: { arch: ['sm_90'] } })],
        })
        .then(
          () => undefined,
          (error: Error) => error,
        );
      // the JIT's typing error, at the kernel's line in the file as written (relative to the build's root, the working directory)
      expect(failure?.message).toContain('[plugin: cuda-js]');
      expect(failure?.message).toContain(`${relative(process.cwd(), file).split(sep).join('/')}:2:`);
      expect(failure?.message).not.toContain(file);
      expect(failure?.message).toContain("'x' (argument 1 of 1) is used as an array");
    }, 60_000);

    async function buildWith(
      name: string,
      text: string,
      aot: CudaJsAotOptions,
    ): Promise<{ code?: string; error?: Error }> {
      const dir = join(out, name);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'kernels.ts');
      writeFileSync(file, text);
      return esbuild
        .build({
          entryPoints: [file],
          bundle: true,
          platform: 'node',
          format: 'esm',
          write: false,
          logLevel: 'silent',
          external: ['cuda-js'],
          plugins: [cudaJsPlugin.esbuild({ aot })],
        })
        .then(
          (r) => ({ code: r.outputFiles[0]!.text }),
          (error: Error) => ({ error }),
        );
    }

    const UNDECLARED = `import { cuda, jit } from 'cuda-js';
export const scale = jit(function scale(x: Float32Array, k: number) {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = x[i]! * k;
});
export const fill = jit((x: Int32Array) => { x[cuda.grid(1)] = 7; }, { name: 'fill' });
export const untouched = jit((x: Int32Array) => { x[0] = 1; }, { name: 'untouched' });
`;

    it("builds the signatures aot.signatures gives in numba's text for kernels whose code declares none, named by their name option or function", async () => {
      const built = await buildWith('option-signatures', UNDECLARED, {
        arch: ['sm_90'],
        ptx: false,
        assets: false,
        signatures: { scale: ['void(float32[::1], float32)'], fill: ['void(int32[:])'] },
      });
      expect(built.error).toBeUndefined();
      const loaded = /loadKernelArtifact\((\{.*\})\);/.exec(built.code ?? '');
      expect(loaded, 'the embedded artifact').not.toBeNull();
      const artifact = JSON.parse(loaded![1]!) as Manifest;
      expect(artifact.kernels.map((k) => [k.name, k.specializations.map((sp) => sp.signature)])).toEqual([
        ['scale', ["array(f32, 1, 'C'), f32"]],
        ['fill', ["array(i32, 1, 'A')"]],
      ]);
    }, 60_000);

    it('fails the build where aot.signatures names a kernel that no module makes, with the nearest name', async () => {
      const built = await buildWith('option-signatures-misspelt', UNDECLARED, {
        arch: ['sm_90'],
        ptx: false,
        assets: false,
        signatures: { scale: ['void(float32[::1], float32)'], fil: ['void(int32[:])'] },
      });
      expect(built.error?.message).toContain(
        "the cuda-js build plugin's aot option: signatures names 'fil', which no kernel of the build is called (did you mean 'fill'?); the kernels built: scale",
      );
    }, 60_000);
  },
);
