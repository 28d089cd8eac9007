// The load of one AOT kernel: with the artifact loaded and the context made,
// `compile(signature)` of a fresh kernel of the same definition takes the
// artifact's cubin (hash check, cuModuleLoadData, cuModuleGetFunction, the
// launch plan), timed for `count` kernels; and loadKernelArtifact of the
// kernels.js module form itself.
//   node aot-load.mjs <artifact kernels.js> [count]
import { array, Device, f32, loadKernelArtifact, pipelineCounts } from 'cuda-js';
import { emit, median, reason } from '../jit/bench-util.mjs';
import { makeAxpy } from './app-kernels.mjs';

const count = Number(process.argv[3] ?? 200);
try {
  const { default: artifact } = await import(new URL(process.argv[2], `file://${process.cwd()}/`).href);
  const t0 = performance.now();
  loadKernelArtifact(artifact);
  const artifactLoadMs = performance.now() - t0;
  Device.get(0).setCurrent();
  const signature = [f32, array(f32, 1), array(f32, 1)];
  const kernels = Array.from({ length: count + 1 }, () => makeAxpy());
  const times = [];
  let origin;
  for (const k of kernels) {
    const t = performance.now();
    const spec = k.compile(signature);
    times.push(performance.now() - t);
    origin = spec.origin;
  }
  const first = times.shift();
  const sorted = [...times].sort((a, b) => a - b);
  emit({
    ok: origin === 'artifact-cubin',
    origin,
    count,
    artifactLoadMs,
    firstLoadMs: first,
    loadMs: median(times),
    p90LoadMs: sorted[Math.floor(sorted.length * 0.9)],
    counts: pipelineCounts(),
  });
} catch (error) {
  emit({ ok: false, error: reason(error) });
}
