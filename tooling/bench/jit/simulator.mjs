// Part 4, the cuda-js side: the JIT kernel in the CPU simulator
// ({ target: 'simulator' }), axpy on n float32 in host Float32Arrays (used in
// place), µs per thread: the median of `reps` launches after the first, and
// the first launch (typing and code generation included) on its own.
// Runs without a GPU.  usage: node simulator.mjs [n] [reps]   (prints one JSON line)
import { jit, cuda, f32 } from '@cuda-js/jit';
import { axpyInputs, emit, firstMismatch, median, reason } from './bench-util.mjs';

const n = Number(process.argv[2] ?? 65536);
const reps = Number(process.argv[3] ?? 20);
const block = 256;
const grid = Math.ceil(n / block);
const out = { n, reps, block };
try {
  const axpy = jit(
    (a, x, y) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i] + y[i];
    },
    { target: 'simulator' },
  );
  const { x, y } = axpyInputs(n);
  const a = f32(2);
  let t0 = performance.now();
  axpy.launch({ grid, block }, a, x, y);
  out.firstMs = performance.now() - t0;
  const bad = firstMismatch(y, (i) => 2 * (i % 1000) + 1);
  out.ok = bad === -1;
  if (!out.ok) out.error = `y[${bad}] = ${y[bad]}, expected ${2 * (bad % 1000) + 1}`;
  const samples = [];
  for (let r = 0; r < reps; r++) {
    t0 = performance.now();
    axpy.launch({ grid, block }, a, x, y);
    samples.push(performance.now() - t0);
  }
  out.ms = median(samples);
  out.samplesMs = samples;
  out.usPerThread = (out.ms * 1000) / n;
  out.firstUsPerThread = (out.firstMs * 1000) / n;
} catch (error) {
  out.error = reason(error);
}
emit(out);
