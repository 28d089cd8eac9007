/**
 * The simulator's f16 and bf16 operations beyond rounding a number (core's
 * roundToFloat16/roundToBfloat16, which the generated code applies after
 * every + - * / of two values of the type: those are exact in f64, or
 * rounded once to 53 bits, which is at least 2p + 2 for p = 11 and 8, so
 * that rounding again gives the correctly rounded result): 64-bit integers
 * and fused multiply-adds, each rounded once from the exact value.
 */
import {
  bfloat16Bits,
  bfloat16FromBits,
  float16Bits,
  float16FromBits,
  roundToBfloat16,
  roundToFloat16,
} from '@cuda-js/core';
import { exactFusedMultiplyAdd } from './exact-fma.js';

const TWO_53 = 2n ** 53n;

/** A bigint as a double rounded to odd at 53 bits (exact below 2^53): rounding that to 51 bits or fewer is the one rounding of the bigint. */
function toOddDouble(x: bigint): number {
  const magnitude = x < 0n ? -x : x;
  if (magnitude <= TWO_53) return Number(x);
  const shift = magnitude.toString(2).length - 53;
  const big = BigInt(shift);
  let kept = magnitude >> big;
  if (kept << big !== magnitude) kept |= 1n;
  const value = Number(kept) * 2 ** shift;
  return x < 0n ? -value : value;
}

/** An i64 or u64 value rounded to f16 once (every magnitude from 65520 on is infinite). */
export function bigintToFloat16(x: bigint): number {
  return roundToFloat16(toOddDouble(x));
}

/** An i64 or u64 value rounded to bf16 once (`Math` on `Number(x)` would round twice above 2^53). */
export function bigintToBfloat16(x: bigint): number {
  return roundToBfloat16(toOddDouble(x));
}

/** `a * b + c` of f16 values with one rounding to f16 (fma.rn.f16), overflow to infinity included. */
export function fmaFloat16(a: number, b: number, c: number): number {
  return roundToFloat16(exactFusedMultiplyAdd(a, b, c, 11, -24));
}

/** `a * b + c` of bf16 values with one rounding to bf16 (fma.rn.bf16). */
export function fmaBfloat16(a: number, b: number, c: number): number {
  return roundToBfloat16(exactFusedMultiplyAdd(a, b, c, 8, -133));
}

/** What generated code calls for f16 and bf16: rounding, the bits of array elements, and the operations above (part of the SimulatorRuntime). */
export const HALF_FLOAT_RUNTIME = Object.freeze({
  roundToFloat16,
  roundToBfloat16,
  float16Bits,
  float16FromBits,
  bfloat16Bits,
  bfloat16FromBits,
  bigintToFloat16,
  bigintToBfloat16,
  fmaFloat16,
  fmaBfloat16,
});

export type HalfFloatRuntime = typeof HALF_FLOAT_RUNTIME;

/** The names of {@link HALF_FLOAT_RUNTIME}'s functions, for the generated code's locals. */
export const HALF_FLOAT_NAMES = Object.freeze(Object.keys(HALF_FLOAT_RUNTIME) as (keyof HalfFloatRuntime)[]);
