/**
 * The math functions that typed-ir.ts defines by a formula, so that the
 * simulator and the GPU agree on NaN, signed zeros and ties (Math.min,
 * Math.max, Math.round and Math.sign differ from these in places). Separate
 * number and bigint versions keep each call site monomorphic for the JIT.
 */

/** `floor(x) + ((x - floor(x)) >= 0.5 ? 1 : 0)`. */
export function roundHalfUp(x: number): number {
  const f = Math.floor(x);
  return f + (x - f >= 0.5 ? 1 : 0);
}

/** `x > 0 ? 1 : x < 0 ? -1 : x` (keeps NaN and ±0). */
export function signNumber(x: number): number {
  return x > 0 ? 1 : x < 0 ? -1 : x;
}

export function signBigint(x: bigint): bigint {
  return x > 0n ? 1n : x < 0n ? -1n : x;
}

/** `(a < b || a != a) ? a : b`: NaN wins. */
export function minNumber(a: number, b: number): number {
  return a < b || a !== a ? a : b;
}

/** `(a > b || a != a) ? a : b`: NaN wins. */
export function maxNumber(a: number, b: number): number {
  return a > b || a !== a ? a : b;
}

export function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function maxBigint(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** `x < 0 ? -x : x` wrapping at 32 bits (abs(-2^31) is -2^31, as on the GPU). */
export function absI32(x: number): number {
  return (x < 0 ? -x : x) | 0;
}

/** `x < 0 ? -x : x` wrapping at 64 bits. */
export function absI64(x: bigint): bigint {
  return x < 0n ? BigInt.asIntN(64, -x) : x;
}
