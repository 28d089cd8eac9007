// Kernels as a TypeScript user writes them: no casts, no `as`, under
// strict + noUncheckedIndexedAccess + exactOptionalPropertyTypes +
// verbatimModuleSyntax (type-tests.test.ts compiles this file with tsc 5.9
// and 6.0, NodeNext and bundler resolution, and runs each kernel in the
// simulator). Indexed reads carry `!`: see the README's "TypeScript" section.
import { f32, u32, u8 } from '@cuda-js/core';
import { cuda, declareDevice, jit, type KernelArray, type KernelPointer, pointer } from '@cuda-js/jit';
import { StridedMemoryView } from '@cuda-js/memory-view';

const simulator = { target: 'simulator' } as const;

/** The README's axpy: `y = a * x + y`. */
export const axpy = jit((a: number, x: Float32Array, y: Float32Array) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i]! + y[i]!;
}, simulator);

/** numba's `add_one(CPointer(uint8), uint32)`: a pointer parameter, declared in the signature. */
export const addOne = jit(
  (x: KernelPointer<'u8'>, n: number) => {
    const i = cuda.grid(1);
    if (i < n) x[i] = x[i]! + 1;
  },
  { ...simulator, signatures: [[pointer(u8), u32]] },
);

/** A 5-point stencil over a 2-D grid (C order), the border copied. */
export const stencil = jit((input: KernelArray<'f32', 2>, output: KernelArray<'f32', 2>) => {
  const [i, j] = cuda.grid(2);
  const rows = input.shape[0];
  const cols = input.shape[1];
  if (i >= rows || j >= cols) return;
  if (i === 0 || j === 0 || i === rows - 1 || j === cols - 1) {
    output.set(i, j, input.get(i, j));
    return;
  }
  const sum = input.get(i - 1, j) + input.get(i + 1, j) + input.get(i, j - 1) + input.get(i, j + 1);
  output.set(i, j, cuda.f32(0.25) * sum);
}, simulator);

/** A block-wide sum in shared memory (tree reduction), one atomic add per block. */
export const blockSum = jit((x: Float32Array, total: Float32Array) => {
  const partial = cuda.shared.array(128, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  partial[t] = i < x.length ? x[i]! : 0;
  cuda.syncthreads();
  for (let s = 64; s > 0; s >>= 1) {
    if (t < s) partial[t] = partial[t]! + partial[t + s]!;
    cuda.syncthreads();
  }
  if (t === 0) cuda.atomic.add(total, 0, partial[0]!);
}, simulator);

/** Linked code (CUDA C++ on the GPU, `simulate` in the simulator), callable with its declared types. */
export const mulAdd = declareDevice(
  'mul_add_f32',
  { args: [f32, f32, f32], returns: f32 },
  {
    link: { cuda: 'extern "C" __device__ float mul_add_f32(float a, float b, float c) { return a * b + c; }' },
    simulate: (a, b, c) => a * b + c,
  },
);

/** A device function of the kernel language. */
export const square = jit.device((v: number) => v * v);

/** Constants the type checker sees: a factory whose parameter names them, called with their values. */
export const scaleAndShift = jit.withConstants(
  { SCALE: 3, SHIFT: 0.5, mulAdd, square },
  ({ SCALE, SHIFT, mulAdd, square }) =>
    (x: Float32Array, out: Float32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = mulAdd(square(x[i]!), SCALE, SHIFT);
    },
  simulator,
);

/** Casts inside kernels: `cuda.i32(x)` is a number for indexing and arithmetic; `cuda.u32` for a mask. */
export const histogram = jit((values: Float32Array, bins: Int32Array, inRange: Uint32Array) => {
  const i = cuda.grid(1);
  const bin = i < values.length ? cuda.i32(values[i]! * bins.length) : -1;
  const counted = bin >= 0 && bin < bins.length;
  const lanes = cuda.ballot_sync(cuda.u32(0xffffffff), counted);
  if (counted) cuda.atomic.add(bins, bin, 1);
  if (i === 0) inRange[0] = lanes;
}, simulator);

/** Runs every kernel above in the simulator and gives what each computed. */
export function runAll(): {
  axpy: number[];
  stencil: number[];
  blockSum: number;
  scaleAndShift: number[];
  histogram: number[];
} {
  const x = Float32Array.from([1, 2, 3, 4]);
  const y = Float32Array.from([10, 20, 30, 40]);
  axpy.launch({ grid: 1, block: 32 }, f32(2), x, y);

  const rows = 4;
  const cols = 5;
  const grid = Float32Array.from({ length: rows * cols }, (_, k) => k * k);
  const input = StridedMemoryView.fromAny(grid).view({ shape: [rows, cols] });
  const out = new Float32Array(rows * cols);
  const output = StridedMemoryView.fromAny(out).view({ shape: [rows, cols] });
  stencil.launch({ grid: [1, 1], block: [rows, cols] }, input, output);

  const ones = new Float32Array(256).fill(1);
  const total = new Float32Array(1);
  blockSum.launch({ grid: 2, block: 128 }, ones, total);

  const scaled = new Float32Array(x.length);
  scaleAndShift.launch({ grid: 1, block: 32 }, x, scaled);

  const bins = new Int32Array(4);
  const inRange = new Uint32Array(1);
  histogram.launch({ grid: 1, block: 32 }, Float32Array.from([0.1, 0.3, 0.3, 0.9, 2]), bins, inRange);
  return {
    axpy: [...y],
    stencil: [...out],
    blockSum: total[0]!,
    scaleAndShift: [...scaled],
    histogram: [...bins, inRange[0]!],
  };
}
