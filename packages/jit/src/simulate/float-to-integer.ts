/**
 * Float → integer conversions as typed-ir.ts defines them (and as PTX's
 * `cvt.rzi.sat` does): truncate toward zero, saturate at the target's range,
 * NaN gives 0.
 */

/** To an integer type of 32 bits or fewer, whose range is `[lowest, highest]`. */
export function floatToInt(x: number, lowest: number, highest: number): number {
  if (x !== x) return 0;
  if (x <= lowest) return lowest;
  if (x >= highest) return highest;
  return Math.trunc(x) + 0; // + 0 turns the -0 of trunc(-0.5) into 0: integers have no -0
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

export function floatToI64(x: number): bigint {
  if (x !== x) return 0n;
  if (x <= -(2 ** 63)) return I64_MIN;
  if (x >= 2 ** 63) return I64_MAX;
  return BigInt(Math.trunc(x));
}

export function floatToU64(x: number): bigint {
  if (x !== x || x <= 0) return 0n;
  if (x >= 2 ** 64) return U64_MAX;
  return BigInt(Math.trunc(x));
}
