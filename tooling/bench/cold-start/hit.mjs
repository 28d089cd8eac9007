// A fresh process whose first JIT kernel is a disk-cache hit (cold-start
// benchmark, run.mjs): imports cuda-js, makes the context, defines axpy with
// `{ cache: true }` and times its first launch (the hit: key, entry, load,
// launcher; then the launch), checks the result, and times a second load of
// the same cubin (the driver's part of a hit, warm). Prints one JSON line.
// With CUDA_JS_CACHE_DIR empty, the first run compiles and writes the entry.
import { axpyInputs, emit, firstMismatch, reason, sinceSpawnMs } from '../jit/bench-util.mjs';

const phases = { started: sinceSpawnMs() };
try {
  const t0 = performance.now();
  const { jit, cuda, f32, Device, ObjectCode, StridedMemoryView } = await import('cuda-js');
  phases.imported = sinceSpawnMs();
  const importMs = performance.now() - t0;
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
  const t1 = performance.now();
  const axpy = jit(
    (a, x, y) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i] + y[i];
    },
    { cache: true },
  );
  const defineMs = performance.now() - t1;
  const t2 = performance.now();
  axpy.launch({ grid: n / 256, block: 256 }, f32(2), x, y);
  const firstLaunchMs = performance.now() - t2;
  device.synchronize();
  phases.launched = sinceSpawnMs();
  const out = new Float32Array(n);
  yBuf.copyTo(out);
  const bad = firstMismatch(out, (i) => 2 * (i % 1000) + 1);
  phases.checked = sinceSpawnMs();
  const spec = [...axpy.specializations.values()][0];
  const t3 = performance.now();
  const again = ObjectCode.fromCubin(spec.objectCode.code, { name: 'again.cubin' });
  again.getKernel(spec.kernel.name);
  const loadAgainMs = performance.now() - t3;
  again.close();
  emit({
    ok: bad === -1,
    error: bad === -1 ? undefined : `y[${bad}] = ${out[bad]}`,
    origin: spec.origin,
    cacheStats: axpy.cacheStats,
    importMs,
    defineMs,
    firstLaunchMs,
    loadAgainMs,
    cubinBytes: spec.objectCode.code.byteLength,
    phasesMs: phases,
    maxRssKB: process.resourceUsage().maxRSS,
  });
} catch (error) {
  emit({ ok: false, error: reason(error), phasesMs: phases, maxRssKB: process.resourceUsage().maxRSS });
}
