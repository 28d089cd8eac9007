// The JS kernels of the JIT breadth benchmark, one definition each, used by
// every part that runs them (the GPU parts, the disk-cache children and the
// simulator), so that all of them compile the same source. Each is the same
// algorithm, line for line, as its CUDA C++ twin in kernels.cu and its
// numba-cuda twin in numba_breadth.py.
import { jit, cuda, f32 } from 'cuda-js';

/** Threads per block of the reduction (its shared array has one slot a thread). */
export const REDUCE_BLOCK = 256;
/** Blocks per multiprocessor of the reduction's grid: the grid-stride loop's usual 32 × SMs. */
export const REDUCE_BLOCKS_PER_SM = 32;
/** The matmul tiles measured: the classic kernel with 16 × 16 and with 32 × 32 blocks. */
export const TILES = [16, 32];
/** Threads per block of the simulator's reduction, and its barriers: one, then one per tree step. */
export const SIM_BLOCK = 128;
export const SIM_BARRIERS = 1 + Math.log2(SIM_BLOCK);

/**
 * Part 1: adds the sum of x into out[0] (zeroed by the caller), in blocks of
 * 256 threads on any grid: a grid-stride loop with four independent loads an
 * iteration, a shared-memory tree down to 64 partial sums, the first warp's
 * shuffles for the last 64, one atomic add a block.
 */
export function reduceKernel(options = {}) {
  return jit(
    (x, out) => {
      const partial = cuda.shared.array(256, f32);
      const tid = cuda.threadIdx.x;
      const n = x.length;
      const stride = cuda.gridsize(1);
      let i = cuda.grid(1);
      let sum = f32(0);
      while (i + 3 * stride < n) {
        sum += x[i] + x[i + stride] + x[i + 2 * stride] + x[i + 3 * stride];
        i += 4 * stride;
      }
      while (i < n) {
        sum += x[i];
        i += stride;
      }
      partial[tid] = sum;
      cuda.syncthreads();
      for (let k = 128; k > 32; k >>= 1) {
        if (tid < k) partial[tid] += partial[tid + k];
        cuda.syncthreads();
      }
      if (tid < 32) {
        let v = partial[tid] + partial[tid + 32];
        for (let offset = 16; offset > 0; offset >>= 1) v += cuda.shfl_down_sync(0xffffffff, v, offset);
        if (tid === 0) cuda.atomic.add(out, 0, v);
      }
    },
    { name: 'reduce_sum', ...options },
  );
}

/**
 * Part 2: C = A B for n × n row-major float32 matrices (flat arrays of n²),
 * n a multiple of `tile`, in blocks of tile × tile threads on a grid of
 * (n / tile, n / tile): one element of C a thread, two shared tiles.
 */
export function matmulKernel(tile, options = {}) {
  return jit(
    (A, B, C, n) => {
      const As = cuda.shared.array([TILE, TILE], f32);
      const Bs = cuda.shared.array([TILE, TILE], f32);
      const tx = cuda.threadIdx.x;
      const ty = cuda.threadIdx.y;
      const row = cuda.blockIdx.y * TILE + ty;
      const col = cuda.blockIdx.x * TILE + tx;
      let acc = f32(0);
      for (let t = 0; t < n; t += TILE) {
        As.set(ty, tx, A[row * n + t + tx]);
        Bs.set(ty, tx, B[(t + ty) * n + col]);
        cuda.syncthreads();
        for (let k = 0; k < TILE; k++) acc += As.get(ty, k) * Bs.get(k, tx);
        cuda.syncthreads();
      }
      C[row * n + col] = acc;
    },
    { name: `matmul_tiled${tile}`, ...options, constants: { ...options.constants, TILE: tile } },
  );
}

/**
 * Part 4: each block of 128 threads writes the sum of its 128 elements of x
 * to out[blockIdx.x], by a shared-memory tree: one barrier after the loads,
 * then one after each of the log2(128) = 7 steps (8 in all).
 */
export function simulatorReduceKernel(options = {}) {
  return jit(
    (x, out) => {
      const s = cuda.shared.array(128, f32);
      const tid = cuda.threadIdx.x;
      s[tid] = x[cuda.grid(1)];
      cuda.syncthreads();
      for (let k = 64; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        cuda.syncthreads();
      }
      if (tid === 0) out[cuda.blockIdx.x] = s[0];
    },
    { name: 'block_tree_sum', target: 'simulator', ...options },
  );
}

// ---- host data and references, the same formulas as numba_breadth.py and no randomness

/** Part 1's input: x[i] = i % 16 (small integers: every per-thread and per-block partial sum is exact in f32). */
export function reduceInput(n) {
  const x = new Float32Array(n);
  for (let i = 0; i < Math.min(16, n); i++) x[i] = i;
  for (let filled = 16; filled < n; filled *= 2) x.copyWithin(filled, 0, Math.min(filled, n - filled));
  return x;
}

/** The sum of `x` in f64 on the host. */
export function hostSum(x) {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s;
}

/** Part 2's inputs: A[r][c] = ((131 r + 71 c) mod 97) / 97 − 0.5 and B[r][c] = ((59 r + 113 c) mod 89) / 89 − 0.5, rounded to f32. */
export function matmulInputs(n) {
  const A = new Float32Array(n * n);
  const B = new Float32Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      A[r * n + c] = ((131 * r + 71 * c) % 97) / 97 - 0.5;
      B[r * n + c] = ((59 * r + 113 * c) % 89) / 89 - 0.5;
    }
  }
  return { A, B };
}

/** The entries of C = A B that are checked: the corners, the middle, and 60 more spread by a fixed stride. */
export function matmulCheckPoints(n) {
  const points = [
    [0, 0],
    [0, n - 1],
    [n - 1, 0],
    [n - 1, n - 1],
    [n >> 1, n >> 1],
  ];
  for (let k = 0; k < 59; k++) points.push([(k * 2654435761) % n, (k * 40503 + 17) % n]);
  return points;
}

/** C[r][c] in f64 from the f32 inputs, and how far an f32 sum of the n products may be from it (the bound of a recursive sum: n u Σ|a b|, u = 2⁻²⁴, 5 % over). */
export function matmulReference(A, B, n, r, c) {
  let sum = 0;
  let abs = 0;
  for (let k = 0; k < n; k++) {
    const p = A[r * n + k] * B[k * n + c];
    sum += p;
    abs += Math.abs(p);
  }
  return { value: sum, tolerance: 1.05 * n * 2 ** -24 * abs + 1e-6 };
}

/**
 * Checks C (host copy) against the reference at `matmulCheckPoints`, and
 * that every element was written (C was filled with NaN before the launch).
 * Gives { ok, checked, maxError (in units of the tolerance), error }.
 */
export function checkMatmul(C, A, B, n) {
  for (let i = 0; i < C.length; i++) {
    if (Number.isNaN(C[i])) return { ok: false, error: `C[${Math.floor(i / n)}][${i % n}] was not written (NaN)` };
  }
  let maxError = 0;
  const points = matmulCheckPoints(n);
  for (const [r, c] of points) {
    const { value, tolerance } = matmulReference(A, B, n, r, c);
    const got = C[r * n + c];
    const error = Math.abs(got - value) / tolerance;
    maxError = Math.max(maxError, error);
    if (!(error <= 1))
      return {
        ok: false,
        checked: points.length,
        maxError,
        error: `C[${r}][${c}] = ${got}, expected ${value} ± ${tolerance.toPrecision(3)}`,
      };
  }
  return { ok: true, checked: points.length, maxError };
}

/** Relative error of a reduction's result against the f64 host sum; 1e-4 passes (a lost block of 256 × 248 elements is 2e-4). */
export function checkSum(got, reference) {
  const relError = Math.abs(got - reference) / Math.abs(reference);
  return relError <= 1e-4
    ? { ok: true, got, relError }
    : {
        ok: false,
        got,
        relError,
        error: `sum = ${got}, expected ${reference} (relative error ${relError.toPrecision(3)})`,
      };
}
