// An app's kernels built ahead of time, then loaded in a process where
// libNVVM and libdevice are hidden from pathfinder: the artifact answers
// every covered launch with no typing, no lowering and libNVVM never
// loaded (the pipeline's own counters and the bindings' list of loaded
// libraries say so); an uncovered architecture or signature is a
// KernelNotBuiltError listing what was built, and a changed kernel a
// StaleKernelArtifactError. Child processes, because a library is loaded
// once per process (the GPU form launches: aot.gpu.test.ts).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWhen, ptxasMissing } from '@cuda-js/test-support/toolchain';
import { beforeAll, expect, it } from 'vitest';
import { nvvmMissing } from '../compile/toolchain-environment.test-support.js';
import {
  AXPY_F32,
  AXPY_F64,
  BINDINGS_DIST,
  buildInChild,
  fixtureApp,
  HIDE_NVVM,
  JIT_DIST,
  kernelsModule,
  PROGRAM_DIST,
  runNode,
} from './aot-fixture.test-support.js';

const distMissing =
  existsSync(JIT_DIST) && existsSync(BINDINGS_DIST) ? undefined : `${JIT_DIST} is not built (npm test builds it first)`;

/** The child that loads the artifact with libNVVM hidden and asks it about launches. */
const LOADER = `import { loadKernelArtifact, pipelineCounts, f32, f64, array } from ${JSON.stringify(JIT_DIST)};
import { loadedLibraries } from ${JSON.stringify(BINDINGS_DIST)};
import { nvvmToolchain } from ${JSON.stringify(PROGRAM_DIST)};
const artifact = loadKernelArtifact(process.env.ARTIFACT_FORM === 'module' ? (await import('./out/kernels.js')).default : './out');
const { axpy, blockSum } = await import('./kernels.mjs');
const start = pipelineCounts();
const ask = (kernel, sig, arch) => { try { return kernel.artifactCode(sig, { arch }); } catch (e) { return { error: e.name, message: e.message }; } };
const answers = {
  axpy90: ask(axpy, [f32, array(f32, 1), array(f32, 1)], 'sm_90'),
  axpyF64: ask(axpy, [f64, array(f64, 1), array(f64, 1)], 'sm_90'),
  axpy100: ask(axpy, [f32, array(f32, 1), array(f32, 1)], 'sm_100'),
  blockSum90: ask(blockSum, [array(f32, 1), array(f32, 1)], 'sm_90'),
  axpy75: ask(axpy, [f32, array(f32, 1), array(f32, 1)], 'sm_75'),
  axpyOther: ask(axpy, [f32, array(f32, 2), array(f32, 1)], 'sm_90'),
};
const end = pipelineCounts();
let nvvm = 'loaded';
try { nvvmToolchain(); } catch (e) { nvvm = e.name; }
console.log(JSON.stringify({ kernels: artifact.kernels.map((k) => k.name), answers, typed: end.typed - start.typed, lowered: end.lowered - start.lowered, typedAll: end.typed, loweredAll: end.lowered, libraries: loadedLibraries().map((l) => l.name), nvvm }));
`;

interface LoaderReport {
  kernels: string[];
  answers: Record<string, { kind?: string; arch?: string; symbol?: string; error?: string; message?: string }>;
  typed: number;
  lowered: number;
  typedAll: number;
  loweredAll: number;
  libraries: string[];
  nvvm: string;
}

describeWhen([distMissing, nvvmMissing, ptxasMissing], 'an AOT-built app loaded with libNVVM hidden', () => {
  let app: string;
  beforeAll(() => {
    app = fixtureApp();
    const built = buildInChild(app, { arch: ['sm_90'] });
    expect(built.status, built.out).toBe(0);
    expect(built.out).toContain('["axpy","blockSum"]');
  }, 120_000);

  for (const form of ['folder', 'module']) {
    it(`answers covered launches from the artifact (${form} form) with no typing or lowering and no libNVVM`, () => {
      const r = runNode(app, LOADER, { ...HIDE_NVVM, ARTIFACT_FORM: form });
      expect(r.status, r.out).toBe(0);
      const report = r.json as LoaderReport;
      // hidden for real: libNVVM cannot be loaded in this process
      expect(report.nvvm).toBe('LibraryNotFoundError');
      expect(report.kernels).toEqual(['axpy', 'blockSum']);
      expect(report.answers['axpy90']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'axpy' });
      expect(report.answers['axpyF64']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'axpy_1' });
      expect(report.answers['axpy100']).toMatchObject({ kind: 'ptx', arch: 'compute_90' });
      expect(report.answers['blockSum90']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'blockSum' });
      expect([report.typed, report.lowered, report.typedAll, report.loweredAll]).toEqual([0, 0, 0, 0]);
      expect(report.libraries).not.toContain('nvvm');
    }, 120_000);
  }

  it('names what was built when a launch is not covered and libNVVM is not there', () => {
    const report = runNode(app, LOADER, HIDE_NVVM).json as LoaderReport;
    const arch = report.answers['axpy75']!;
    expect(arch.error).toBe('KernelNotBuiltError');
    expect(arch.message).toContain('does not cover a device of architecture sm_75');
    expect(arch.message).toContain('LibraryNotFoundError');
    expect(arch.message).toContain(`axpy(${AXPY_F32}): cubin sm_90; PTX compute_90`);
    expect(arch.message).toContain(`axpy(${AXPY_F64}): cubin sm_90; PTX compute_90`);
    expect(arch.message).toContain('cuda-js build-kernels --arch sm_75');
    const sig = report.answers['axpyOther']!;
    expect(sig.error).toBe('KernelNotBuiltError');
    expect(sig.message).toContain("does not cover the signature (f32, array(f32, 2, 'C'), array(f32, 1, 'C'))");
  }, 120_000);

  it('refuses the artifact once the kernel changed (StaleKernelArtifactError), with libNVVM hidden or not', () => {
    writeFileSync(join(app, 'kernels.mjs'), kernelsModule(' + 0'));
    try {
      for (const env of [HIDE_NVVM, {}]) {
        const report = runNode(app, LOADER, env).json as LoaderReport;
        expect(report.answers['axpy90']).toMatchObject({
          error: 'StaleKernelArtifactError',
          message: expect.stringContaining('the artifact is stale'),
        });
        // the unchanged kernel of the same artifact is still served
        expect(report.answers['blockSum90']).toMatchObject({ kind: 'cubin' });
      }
    } finally {
      writeFileSync(join(app, 'kernels.mjs'), kernelsModule());
    }
  }, 120_000);
});
