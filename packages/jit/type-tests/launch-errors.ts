// Launches that TypeScript must refuse: each `@ts-expect-error` fails the
// compile (TS2578, an unused directive) if the error it marks goes away.
import { f32, i32, i64, u32 } from '@cuda-js/core';
import { cuda, jit } from '@cuda-js/jit';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { addOne, axpy, blockSum, stencil } from './kernels.js';

const x = new Float32Array(4);
const y = new Float32Array(4);
const view = StridedMemoryView.fromAny(x);

export function refusedLaunches(): void {
  const config = { grid: 1, block: 32 };
  // accepted: numbers and number scalars for `a: number`, float32 host arrays and views for Float32Array
  axpy.launch(config, 2, x, y);
  axpy.launch(config, f32(2), view, y);
  axpy.forall(4)(i32(2), x, view);
  // @ts-expect-error: swapped arguments (an array for `a: number`, a number for `x`)
  axpy.launch(config, x, f32(2), y);
  // @ts-expect-error: a missing argument
  axpy.launch(config, f32(2), x);
  // @ts-expect-error: one argument too many
  axpy.launch(config, f32(2), x, y, y);
  // @ts-expect-error: the wrong dtype (Int32Array for Float32Array)
  axpy.launch(config, f32(2), new Int32Array(4), y);
  // @ts-expect-error: the wrong dtype (Float64Array for Float32Array)
  axpy.forall(4)(f32(2), x, new Float64Array(4));
  // @ts-expect-error: a bigint scalar for a number parameter
  axpy.launch(config, i64(2n), x, y);
  // @ts-expect-error: a string is no argument
  blockSum.launch(config, 'x', y);
  // @ts-expect-error: a 1-D typed array for a 2-D KernelArray parameter (views carry their shape at run time)
  stencil.launch(config, x, view);
  // accepted: a bigint address or a Uint8Array for a KernelPointer<'u8'> parameter
  addOne.launch(config, 0x7f0000000000n, 4);
  addOne.launch(config, new Uint8Array(4), 4);
  // @ts-expect-error: a Float32Array for a KernelPointer<'u8'> parameter
  addOne.launch(config, x, 4);
  // @ts-expect-error: a number is no address (a bigint is)
  addOne.launch(config, 4096, 4);
}

/** The tensor-core fragments' types (compiled, not launched): u32 registers for A and B, f32 accumulators for C and D. */
export const mmaFragments = jit((out: Float32Array) => {
  const a = cuda.local.array(4, u32);
  const b = cuda.local.array(2, u32);
  const c = cuda.local.array(4, f32);
  const d = cuda.local.array(4, f32);
  a[0] = cuda.pack_bf16x2(1.5, -2);
  cuda.mma.m16n8k16_bf16(d, a, b, c);
  cuda.mma.m16n8k16_f16(c, a, b, c);
  // @ts-expect-error: A's registers are u32, not f32
  cuda.mma.m16n8k16_bf16(d, c, b, c);
  // @ts-expect-error: D's accumulators are f32, not u32
  cuda.mma.m16n8k16_bf16(a, a, b, c);
  // @ts-expect-error: the packers take two numbers
  cuda.pack_bf16x2(1);
  out[0] = d[0]!;
});
