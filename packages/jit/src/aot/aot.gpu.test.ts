// On a GPU: an app's kernels built ahead of time run with libNVVM hidden
// (checked against plain-JS results, nothing typed or lowered, libNVVM never
// loaded), PTX is the fallback for an architecture list without the
// device's cubin (sm_80 cubin + compute_80 PTX on an sm_90), and a list
// that covers nothing of the device is the JIT where libNVVM is present,
// else a KernelNotBuiltError naming what was built. Child processes, as in
// hidden-nvvm.test.ts (a library is loaded once per process).
import { existsSync } from 'node:fs';
import { describeGpu } from '@cuda-js/test-support';
import { ptxasMissing } from '@cuda-js/test-support/toolchain';
import { expect, it } from 'vitest';
import { nvvmMissing } from '../compile/toolchain-environment.test-support.js';
import {
  AXPY_F32,
  BINDINGS_DIST,
  buildInChild,
  fixtureApp,
  HIDE_NVVM,
  JIT_DIST,
  runNode,
} from './aot-fixture.test-support.js';

const missing = [existsSync(JIT_DIST) ? undefined : `${JIT_DIST} is not built`, nvvmMissing, ptxasMissing].find(
  (r) => r !== undefined,
);

/** The app: loads the artifact, launches each kernel once on host arrays, checks the results against plain JS, and reports. */
const APP = `import { loadKernelArtifact, pipelineCounts, f32 } from ${JSON.stringify(JIT_DIST)};
import { loadedLibraries } from ${JSON.stringify(BINDINGS_DIST)};
const t0 = performance.now();
loadKernelArtifact('./out');
const { axpy, blockSum } = await import('./kernels.mjs');
const n = 1 << 20;
const x = new Float32Array(n).map((_, i) => (i % 1000) / 7);
const y0 = new Float32Array(n).map((_, i) => (i % 313) - 100);
let error;
const report = { checks: {}, origins: {}, error: undefined };
try {
  const y = y0.slice();
  const t1 = performance.now();
  axpy.launch({ grid: Math.ceil(n / 256), block: 256 }, f32(2), x, y);
  report.firstLaunchMs = performance.now() - t1;
  report.checks.axpyF32 = y.every((v, i) => Math.abs(v - (2 * x[i] + y0[i])) <= 1e-4 * Math.max(1, Math.abs(v)));
  const xd = Float64Array.from(x), yd = Float64Array.from(y0);
  axpy.launch({ grid: Math.ceil(n / 256), block: 256 }, 2.5, xd, yd);
  // the GPU contracts into an FMA (one rounding), JS rounds twice
  report.checks.axpyF64 = yd.every((v, i) => Math.abs(v - (2.5 * xd[i] + y0[i])) <= 1e-12 * Math.max(1, Math.abs(v)));
  const sums = new Float32Array(1);
  blockSum.launch({ grid: n / 128, block: 128 }, x, sums);
  let want = 0;
  for (const v of x) want += v * v;
  // 8192 block sums of ~9e5 added in f32 atomics
  report.checks.blockSum = Math.abs(sums[0] - want) <= 1e-3 * want;
} catch (e) {
  report.error = { name: e.name, message: e.message };
}
for (const k of [axpy, blockSum]) report.origins[k.name] = [...k.specializations.values()].map((s) => s.origin);
const c = pipelineCounts();
report.typed = c.typed;
report.lowered = c.lowered;
report.libraries = loadedLibraries().map((l) => l.name);
report.totalMs = performance.now() - t0;
console.log(JSON.stringify(report));
`;

interface AppReport {
  checks: Record<string, boolean>;
  origins: Record<string, string[]>;
  error?: { name: string; message: string };
  typed: number;
  lowered: number;
  libraries: string[];
  firstLaunchMs?: number;
  totalMs: number;
}

function appRun(app: string, env: Record<string, string>): AppReport {
  const r = runNode(app, APP, env);
  expect(r.status, r.out).toBe(0);
  console.log(r.out.trim());
  return r.json as AppReport;
}

describeGpu('ahead-of-time kernels on the GPU', () => {
  const itBuilt = missing === undefined ? it : it.skip;
  if (missing !== undefined) it.skip(`(skipped: ${missing})`, () => {});

  itBuilt('runs the app built for sm_90 with libNVVM hidden: cubins, checked results, nothing typed or lowered', () => {
    const app = fixtureApp();
    expect(buildInChild(app, { arch: ['sm_90'] }).status).toBe(0);
    const report = appRun(app, HIDE_NVVM);
    expect(report.error).toBeUndefined();
    expect(report.checks).toEqual({ axpyF32: true, axpyF64: true, blockSum: true });
    expect(report.origins).toEqual({ axpy: ['artifact-cubin', 'artifact-cubin'], blockSum: ['artifact-cubin'] });
    expect([report.typed, report.lowered]).toEqual([0, 0]);
    expect(report.libraries).not.toContain('nvvm');
    expect(report.libraries).toContain('cuda');
  });

  itBuilt(
    'falls back to the PTX where the cubins are of another architecture (sm_80 cubin + compute_80 PTX on the sm_90), libNVVM hidden',
    () => {
      const app = fixtureApp();
      expect(buildInChild(app, { arch: ['sm_80'], ptx: ['compute_80'] }).status).toBe(0);
      const report = appRun(app, HIDE_NVVM);
      expect(report.error).toBeUndefined();
      expect(report.checks).toEqual({ axpyF32: true, axpyF64: true, blockSum: true });
      expect(report.origins).toEqual({ axpy: ['artifact-ptx', 'artifact-ptx'], blockSum: ['artifact-ptx'] });
      expect([report.typed, report.lowered]).toEqual([0, 0]);
      expect(report.libraries).not.toContain('nvvm');
    },
  );

  itBuilt(
    'an artifact that covers nothing of the device: the JIT with libNVVM, a KernelNotBuiltError listing what was built without',
    () => {
      const app = fixtureApp();
      expect(buildInChild(app, { arch: ['sm_80'], ptx: false }).status).toBe(0);
      const jitted = appRun(app, {});
      expect(jitted.error).toBeUndefined();
      expect(jitted.checks).toEqual({ axpyF32: true, axpyF64: true, blockSum: true });
      expect(jitted.origins).toEqual({ axpy: ['jit', 'jit'], blockSum: ['jit'] });
      const refused = appRun(app, HIDE_NVVM);
      expect(refused.error?.name).toBe('KernelNotBuiltError');
      expect(refused.error?.message).toContain(`axpy(${AXPY_F32}): cubin sm_80; no PTX`);
      expect(refused.error?.message).toContain('cuda-js build-kernels --arch sm_90');
    },
  );
});
