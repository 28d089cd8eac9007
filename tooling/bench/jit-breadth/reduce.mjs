// Part 1, the cuda-js side: the sum of n float32 (GB/s = 4 n bytes read /
// time), the JIT kernel (kernels.mjs) against the same kernel in CUDA C++
// built by nvcc (reduce_sum of kernels.cu, launched through core), on the
// same device array, blocks of 256 on a grid of 32 × the multiprocessors.
// Each result is first checked against the f64 sum on the host; then both
// are timed as gpu-util.mjs says, taking turns.
// usage: node reduce.mjs <cubin> [n] [reps] [batch]   (prints one JSON line)
import { Device, StridedMemoryView, launch, i32 } from 'cuda-js';
import { emit, median, reason } from '../jit/bench-util.mjs';
import { REDUCE_BLOCK, REDUCE_BLOCKS_PER_SM, checkSum, hostSum, reduceInput, reduceKernel } from './kernels.mjs';
import { loadCubin, timeKernels } from './gpu-util.mjs';

const [cubinPath, nText, repsText, batchText] = process.argv.slice(2);
const n = Number(nText ?? 1 << 28);
const reps = Number(repsText ?? 20);
const batch = Number(batchText ?? 5);
const block = REDUCE_BLOCK;

const device = Device.get(0).setCurrent();
const sms = device.attribute('multiprocessorCount');
const grid = REDUCE_BLOCKS_PER_SM * sms;
const stream = device.createStream({ nonBlocking: true });
const host = reduceInput(n);
const reference = hostSum(host);
const xBuf = device.allocate(n * 4, { stream });
const outBuf = device.allocate(4, { stream });
xBuf.copyFrom(host, { stream });
stream.synchronize();
const x = StridedMemoryView.fromPointer(xBuf.ptr, { dtype: 'float32', shape: [n], exporter: xBuf });
const out = StridedMemoryView.fromPointer(outBuf.ptr, { dtype: 'float32', shape: [1], exporter: outBuf });

const kernels = {};
const errors = {};
try {
  const reduce = reduceKernel();
  kernels['cuda-js jit'] = () => reduce.launch({ grid, block, stream }, x, out);
} catch (error) {
  errors['cuda-js jit'] = reason(error);
}
try {
  const kReduce = loadCubin(cubinPath).getKernel('reduce_sum');
  const length = i32(n);
  const config = { grid, block };
  kernels['nvcc (CUDA C++)'] = () => launch(stream, config, kReduce, x, length, out);
} catch (error) {
  errors['nvcc (CUDA C++)'] = reason(error);
}

// one launch into a zeroed out[0] (the JIT's compile too, outside the timing)
function check(run) {
  outBuf.fill(0, { stream, width: 4 });
  run();
  stream.synchronize();
  const got = new Float32Array(1);
  outBuf.copyTo(got, { stream });
  stream.synchronize();
  return checkSum(got[0], reference);
}

const checks = {};
for (const [name, run] of Object.entries(kernels)) {
  try {
    checks[name] = check(run);
    if (!checks[name].ok) errors[name] = `wrong result: ${checks[name].error}`;
  } catch (error) {
    errors[name] = reason(error);
    delete kernels[name];
  }
}
const samples = timeKernels(kernels, { stream, reps, batch });
const results = {};
for (const [name, ms] of Object.entries(samples)) {
  const m = median(ms);
  results[name] = {
    ms: m,
    gbPerS: (4 * n) / (m * 1e-3) / 1e9,
    samplesMs: ms,
    ok: checks[name].ok,
    got: checks[name].got,
    relError: checks[name].relError,
  };
}
emit({ n, reps, batch, grid, block, sms, reference, results, errors, device: device.name });
