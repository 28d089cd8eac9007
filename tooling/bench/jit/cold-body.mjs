// The body of the cold-start child (part 1a): make the context, jit a tiny
// kernel, launch it on a small device array, copy back, check, and print the
// phases and the process's max RSS. The two entry files differ only in what
// they import (cuda-js, or @cuda-js/jit with core and memory-view).
import { axpyInputs, emit, firstMismatch, reason, sinceSpawnMs } from './bench-util.mjs';

export function coldStart({ jit, cuda, f32, Device, StridedMemoryView }) {
  const phases = { imported: sinceSpawnMs() };
  try {
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
    const axpy = jit((a, x, y) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i] + y[i];
    });
    axpy.launch({ grid: n / 256, block: 256 }, f32(2), x, y);
    device.synchronize();
    phases.launched = sinceSpawnMs();
    const out = new Float32Array(n);
    yBuf.copyTo(out);
    const bad = firstMismatch(out, (i) => 2 * (i % 1000) + 1);
    phases.checked = sinceSpawnMs();
    const ok = bad === -1;
    emit({
      ok,
      error: ok ? undefined : `y[${bad}] = ${out[bad]}, expected ${2 * (bad % 1000) + 1}`,
      phasesMs: phases,
      maxRssKB: process.resourceUsage().maxRSS,
    });
  } catch (error) {
    emit({ ok: false, error: reason(error), phasesMs: phases, maxRssKB: process.resourceUsage().maxRSS });
  }
}
