// Part 2, the cuda-js side: C = A B for n × n float32 (TFLOP/s = 2 n³ /
// time), the classic tiled kernel with two shared tiles, 16 × 16 and 32 × 32:
// the JIT kernel (kernels.mjs) against the same kernel in CUDA C++ built by
// nvcc (matmul_tiled16/32 of kernels.cu, launched through core), on the same
// device arrays. Each result is first checked (every element written, 64
// entries against an f64 host reference); then all are timed as gpu-util.mjs
// says, taking turns.
// usage: node matmul.mjs <cubin> [n] [reps] [batch]   (prints one JSON line)
import { Device, StridedMemoryView, launch, i32 } from 'cuda-js';
import { emit, median, reason } from '../jit/bench-util.mjs';
import { TILES, checkMatmul, matmulInputs, matmulKernel } from './kernels.mjs';
import { loadCubin, timeKernels } from './gpu-util.mjs';

const [cubinPath, nText, repsText, batchText] = process.argv.slice(2);
const n = Number(nText ?? 4096);
const reps = Number(repsText ?? 10);
const batch = Number(batchText ?? 3);
const tiles = TILES.filter((t) => n % t === 0);
const NAN = 0x7fc00000;

const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const { A: hostA, B: hostB } = matmulInputs(n);
const bytes = n * n * 4;
const [aBuf, bBuf, cBuf] = [
  device.allocate(bytes, { stream }),
  device.allocate(bytes, { stream }),
  device.allocate(bytes, { stream }),
];
aBuf.copyFrom(hostA, { stream });
bBuf.copyFrom(hostB, { stream });
stream.synchronize();
const view = (b) => StridedMemoryView.fromPointer(b.ptr, { dtype: 'float32', shape: [n * n], exporter: b });
const [A, B, C] = [view(aBuf), view(bBuf), view(cBuf)];
const size = i32(n);

// name -> { tile, run }
const kernels = {};
const errors = {};
for (const tile of tiles) {
  const grid = [n / tile, n / tile];
  const block = [tile, tile];
  const jitName = `cuda-js jit ${tile}×${tile}`;
  try {
    const matmul = matmulKernel(tile);
    kernels[jitName] = { impl: 'cuda-js jit', tile, run: () => matmul.launch({ grid, block, stream }, A, B, C, size) };
  } catch (error) {
    errors[jitName] = reason(error);
  }
  const nvccName = `nvcc (CUDA C++) ${tile}×${tile}`;
  try {
    const kernel = loadCubin(cubinPath).getKernel(`matmul_tiled${tile}`);
    const config = { grid, block };
    kernels[nvccName] = { impl: 'nvcc (CUDA C++)', tile, run: () => launch(stream, config, kernel, A, B, C, size) };
  } catch (error) {
    errors[nvccName] = reason(error);
  }
}

// one launch into a C of NaNs (the JIT's compile too, outside the timing)
function check(run) {
  cBuf.fill(NAN, { stream, width: 4 });
  run();
  stream.synchronize();
  const got = new Float32Array(n * n);
  cBuf.copyTo(got, { stream });
  stream.synchronize();
  return checkMatmul(got, hostA, hostB, n);
}

const checks = {};
for (const [name, k] of Object.entries(kernels)) {
  try {
    checks[name] = check(k.run);
    if (!checks[name].ok) errors[name] = `wrong result: ${checks[name].error}`;
  } catch (error) {
    errors[name] = reason(error);
    delete kernels[name];
  }
}
const samples = timeKernels(Object.fromEntries(Object.entries(kernels).map(([name, k]) => [name, k.run])), {
  stream,
  reps,
  batch,
});
// results[impl][tile]
const results = {};
for (const [name, ms] of Object.entries(samples)) {
  const { impl, tile } = kernels[name];
  const m = median(ms);
  (results[impl] ??= {})[tile] = {
    ms: m,
    tflops: (2 * n ** 3) / (m * 1e-3) / 1e12,
    samplesMs: ms,
    ok: checks[name].ok,
    checked: checks[name].checked,
    maxError: checks[name].maxError,
  };
}
emit({ n, reps, batch, tiles, results, errors, device: device.name });
