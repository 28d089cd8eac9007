// Part 3, the cuda-js side: axpy on n float32 (read x, read y, write y: 12
// bytes an element), the JIT kernel against the same kernel in CUDA C++
// compiled by nvcc (k_len of kernels.cu, launched through core), timed the
// same way: cuEvents around each launch on one stream, median of `reps`,
// the two kernels taking turns launch by launch.
// usage: node bandwidth.mjs <cubin> [n] [reps]   (prints one JSON line)
import { readFileSync } from 'node:fs';
import { jit, cuda, f32, i64, Device, StridedMemoryView, ObjectCode, launch, Event } from 'cuda-js';
import { emit, median, reason } from './bench-util.mjs';

const [cubinPath, nText, repsText] = process.argv.slice(2);
const n = Number(nText ?? 1 << 26);
const reps = Number(repsText ?? 20);
const block = 256;
const grid = Math.ceil(n / block);
const ONE = 0x3f800000; // 1.0f
const TWO = 0x40000000; // 2.0f

const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const xBuf = device.allocate(n * 4, { stream });
const yBuf = device.allocate(n * 4, { stream });
const x = StridedMemoryView.fromPointer(xBuf.ptr, { dtype: 'float32', shape: [n], exporter: xBuf });
const y = StridedMemoryView.fromPointer(yBuf.ptr, { dtype: 'float32', shape: [n], exporter: yBuf });
const a = f32(2);

const axpy = jit((a, x, y) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i] + y[i];
});
const kernels = { 'cuda-js jit': () => axpy.launch({ grid, block, stream }, a, x, y) };
const errors = {};
try {
  const kLen = ObjectCode.fromCubin(new Uint8Array(readFileSync(cubinPath))).getKernel('k_len');
  const length = i64(n);
  const config = { grid, block };
  kernels['nvcc (CUDA C++)'] = () => launch(stream, config, kLen, a, x, y, length);
} catch (error) {
  errors['nvcc (CUDA C++)'] = reason(error);
}

// y = 2 * 1 + 2 after one launch from x = 1, y = 2
function check(run) {
  xBuf.fill(ONE, { stream, width: 4 });
  yBuf.fill(TWO, { stream, width: 4 });
  run();
  stream.synchronize();
  const out = new Float32Array(n);
  yBuf.copyTo(out, { stream });
  for (let i = 0; i < n; i++) if (out[i] !== 4) return `y[${i}] = ${out[i]}, expected 4`;
  return undefined;
}

const samples = {};
for (const [name, run] of Object.entries(kernels)) {
  try {
    const bad = check(run); // also the JIT's compile, outside the timing
    if (bad) errors[name] = `wrong result: ${bad}`;
    samples[name] = [];
  } catch (error) {
    errors[name] = reason(error);
    delete kernels[name];
  }
}
const start = Event.create({ timing: true });
const end = Event.create({ timing: true });
for (let r = 0; r < reps; r++) {
  for (const [name, run] of Object.entries(kernels)) {
    start.record(stream);
    run();
    end.record(stream);
    end.synchronize();
    samples[name].push(Event.elapsedTime(start, end));
  }
}
const results = {};
for (const [name, ms] of Object.entries(samples)) {
  const m = median(ms);
  results[name] = { ms: m, gbPerS: (12 * n) / (m * 1e-3) / 1e9, samplesMs: ms, ok: !errors[name] };
}
emit({ n, reps, grid, block, results, errors, device: device.name });
