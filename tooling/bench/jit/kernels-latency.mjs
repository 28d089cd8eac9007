// Parts 1b and 1c, in a fresh process: with the context made and the arrays
// on the device, the time of jit + compile + launch + sync of the first
// kernel, then of a second kernel with a different source.
// usage: node kernels-latency.mjs   (prints one JSON line)
import { jit, cuda, f32, Device, StridedMemoryView } from 'cuda-js';
import { axpyInputs, emit, firstMismatch, reason } from './bench-util.mjs';

const n = 4096;
const out = { ok: false };
try {
  const device = Device.get(0).setCurrent();
  const xBuf = device.allocate(n * 4);
  const yBuf = device.allocate(n * 4);
  const host = axpyInputs(n);
  xBuf.copyFrom(host.x);
  yBuf.copyFrom(host.y);
  const x = StridedMemoryView.fromPointer(xBuf.ptr, { dtype: 'float32', shape: [n], exporter: xBuf });
  const y = StridedMemoryView.fromPointer(yBuf.ptr, { dtype: 'float32', shape: [n], exporter: yBuf });
  const config = { grid: n / 256, block: 256 };
  const a = f32(2);
  device.synchronize();

  let t0 = performance.now();
  const first = jit((a, x, y) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i] + y[i];
  });
  first.launch(config, a, x, y);
  device.synchronize();
  out.firstMs = performance.now() - t0;

  t0 = performance.now();
  const second = jit((a, x, y) => {
    const i = cuda.grid(1);
    if (i < x.length) y[i] = x[i] * x[i] - a * y[i];
  });
  second.launch(config, a, x, y);
  device.synchronize();
  out.nextMs = performance.now() - t0;

  // y = 2x + 1, then x*x - 2y
  const got = new Float32Array(n);
  yBuf.copyTo(got);
  const expected = (i) => {
    const v = i % 1000;
    return Math.fround(v * v) - 2 * (2 * v + 1);
  };
  const bad = firstMismatch(got, expected);
  out.ok = bad === -1;
  if (!out.ok) out.error = `y[${bad}] = ${got[bad]}, expected ${expected(bad)}`;
  out.compileCount = first.compileCount + second.compileCount;
} catch (error) {
  out.error = reason(error);
}
emit(out);
