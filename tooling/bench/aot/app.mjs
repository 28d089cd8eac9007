// The benchmark's app, process start to first checked result (the shape of
// ../jit/cold-body.mjs): make the context, load the kernel, launch it on a
// small device array, copy back, check; prints the phases and max RSS.
//   node app.mjs aot <artifact kernels.js>   the kernel from the artifact (no typing, lowering or libNVVM)
//   node app.mjs jit                        the kernel compiled by the JIT (run with CUDA_JS_JIT_CACHE=0: cold)
import { Device, f32, loadKernelArtifact, pipelineCounts, StridedMemoryView } from 'cuda-js';
import { axpyInputs, emit, firstMismatch, reason, sinceSpawnMs } from '../jit/bench-util.mjs';
import { axpy } from './app-kernels.mjs';

const phases = { imported: sinceSpawnMs() };
const mode = process.argv[2] ?? 'jit';
try {
  if (mode === 'aot') {
    const t = performance.now();
    const { default: artifact } = await import(new URL(process.argv[3], `file://${process.cwd()}/`).href);
    loadKernelArtifact(artifact);
    phases.artifactLoadMs = performance.now() - t;
    phases.artifact = sinceSpawnMs();
  }
  const n = 4096;
  const device = Device.get(0).setCurrent();
  const xBuf = device.allocate(n * 4);
  const yBuf = device.allocate(n * 4);
  const host = axpyInputs(n);
  xBuf.copyFrom(host.x);
  yBuf.copyFrom(host.y);
  const x = StridedMemoryView.fromPointer(xBuf.ptr, { dtype: 'float32', shape: [n], exporter: xBuf });
  const y = StridedMemoryView.fromPointer(yBuf.ptr, { dtype: 'float32', shape: [n], exporter: yBuf });
  device.synchronize();
  phases.context = sinceSpawnMs();
  axpy.launch({ grid: n / 256, block: 256 }, f32(2), x, y);
  device.synchronize();
  phases.launched = sinceSpawnMs();
  const out = new Float32Array(n);
  yBuf.copyTo(out);
  const bad = firstMismatch(out, (i) => 2 * (i % 1000) + 1);
  phases.checked = sinceSpawnMs();
  const ok = bad === -1;
  const origin = [...axpy.specializations.values()][0]?.origin;
  emit({
    ok,
    mode,
    origin,
    counts: pipelineCounts(),
    error: ok ? undefined : `y[${bad}] = ${out[bad]}`,
    phasesMs: phases,
    maxRssKB: process.resourceUsage().maxRSS,
  });
} catch (error) {
  emit({ ok: false, mode, error: reason(error), phasesMs: phases, maxRssKB: process.resourceUsage().maxRSS });
}
