/**
 * A 64-bit integer rounded to the nearest f32 (ties to even) in one rounding,
 * as the GPU's `cvt.rn.f32.s64` does. `Math.fround(Number(x))` would round
 * twice (to f64, then to f32) and can miss by one unit above 2^53.
 */
export function bigintToFloat32(x: bigint): number {
  const magnitude = x < 0n ? -x : x;
  if (magnitude <= 2n ** 53n) return Math.fround(Number(x)); // exact as a double: one rounding
  // Keep 26 bits and fold the rest into the last one (round to odd): rounding
  // that to 24 bits then gives the correctly rounded result.
  const shift = magnitude.toString(2).length - 26;
  const big = BigInt(shift);
  let kept = magnitude >> big;
  if (kept << big !== magnitude) kept |= 1n;
  const value = Number(kept) * 2 ** shift;
  return Math.fround(x < 0n ? -value : value);
}
