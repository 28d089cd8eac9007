// Part 4, the cuda-js side: the block tree reduction of kernels.mjs (blocks
// of 128, a shared array, 8 barriers) in the CPU simulator
// ({ target: 'simulator' }; its race checks are always on) over host
// Float32Arrays, µs per thread: the median of `reps` launches after the
// first, and the first launch (typing and code generation included) on its
// own. Every block's sum is checked. Runs without a GPU.
// usage: node simulator.mjs [blocks] [reps]   (prints one JSON line)
import { emit, median, reason } from '../jit/bench-util.mjs';
import { SIM_BARRIERS, SIM_BLOCK, reduceInput, simulatorReduceKernel } from './kernels.mjs';

const blocks = Number(process.argv[2] ?? 64);
const reps = Number(process.argv[3] ?? 10);
const block = SIM_BLOCK;
const threads = blocks * block;
const out = { blocks, block, threads, barriers: SIM_BARRIERS, reps };
try {
  const kernel = simulatorReduceKernel();
  const x = reduceInput(threads);
  const sums = new Float32Array(blocks);
  let t0 = performance.now();
  kernel.launch({ grid: blocks, block }, x, sums);
  out.firstMs = performance.now() - t0;
  out.ok = true;
  for (let b = 0; b < blocks; b++) {
    let expected = 0;
    for (let i = b * block; i < (b + 1) * block; i++) expected += x[i];
    if (sums[b] !== expected) {
      out.ok = false;
      out.error = `out[${b}] = ${sums[b]}, expected ${expected}`;
      break;
    }
  }
  const samples = [];
  for (let r = 0; r < reps; r++) {
    sums.fill(0);
    t0 = performance.now();
    kernel.launch({ grid: blocks, block }, x, sums);
    samples.push(performance.now() - t0);
  }
  out.ms = median(samples);
  out.samplesMs = samples;
  out.usPerThread = (out.ms * 1000) / threads;
  out.firstUsPerThread = (out.firstMs * 1000) / threads;
} catch (error) {
  out.error = reason(error);
}
emit(out);
