import { cuda, f32, jit } from 'cuda-js';

// Unnamed kernels, as users write them: each is named by its own function.
export const saxpy = jit(function saxpy(a: number, x: Float32Array, y: Float32Array) {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i]! + y[i]!;
});

export const blockSum = jit(function blockSum(x: Float32Array, sums: Float32Array) {
  const partial = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  partial[t] = x[cuda.grid(1)]!;
  cuda.syncthreads();
  if (t === 0) {
    let s = 0;
    for (let k = 0; k < 64; k++) s += partial[k]!;
    sums[cuda.blockIdx.x] = s;
  }
});
