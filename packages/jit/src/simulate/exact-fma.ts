/**
 * Fused multiply-add with one rounding, as the GPU's `fma.rn` (libdevice
 * `__nv_fma[f]`) computes it. JavaScript has no fma, and `a * b + c` rounds twice.
 */

const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);
const scratchBits = new BigUint64Array(scratch.buffer);
// Uint32 word order of a double in memory (the low word first on little-endian machines).
const LOW_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** A finite double as `mantissa * 2^exponent` with an integer mantissa. */
function decompose(x: number): [mantissa: bigint, exponent: number] {
  scratch[0] = x;
  const bits = scratchBits[0]!;
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return [bits >> 63n ? -mantissa : mantissa, exponent];
}

/**
 * `a * b + c` computed exactly, then rounded to nearest-even at `precision`
 * significant bits with no bit below 2^`minExponent` (53, -1074 for f64; 24,
 * -149 for f32). The result is a double that holds the rounded value.
 */
export function exactFusedMultiplyAdd(a: number, b: number, c: number, precision: number, minExponent: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a * b + c; // infinities and NaN: IEEE rules of the plain expression
  if (!Number.isFinite(c)) return c; // a finite product cannot change an infinite or NaN addend
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const mp = ma * mb;
  const ep = ea + eb;
  if (mp === 0n && mc === 0n) return a * b + c; // exact signed zeros: IEEE's sign rule
  const e = Math.min(ep, ec);
  const sum = (mp << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (sum === 0n) return 0; // exact cancellation rounds to +0
  const negative = sum < 0n;
  const magnitude = negative ? -sum : sum;
  const lsb = Math.max(e + magnitude.toString(2).length - precision, minExponent);
  let rounded = magnitude;
  let exponent = e;
  if (lsb > e) {
    const shift = BigInt(lsb - e);
    const quotient = magnitude >> shift;
    const rest = magnitude - (quotient << shift);
    const half = 1n << (shift - 1n);
    rounded = rest > half || (rest === half && (quotient & 1n) === 1n) ? quotient + 1n : quotient;
    exponent = lsb;
  }
  // `rounded` has at most precision + 1 bits: the product is exact, or overflows to Infinity as it should.
  const value = Number(rounded) * 2 ** exponent;
  return negative ? -value : value;
}

export function fmaFloat64(a: number, b: number, c: number): number {
  return exactFusedMultiplyAdd(a, b, c, 53, -1074);
}

/**
 * f32 fma. The product of two f32 values is exact in f64; the sum is rounded
 * once to f64, and where that rounding lost something, the f64 result is
 * moved to its odd neighbour toward the exact value (rounding to odd), which
 * makes the final rounding to f32 correct.
 */
export function fmaFloat32(a: number, b: number, c: number): number {
  const product = a * b;
  const sum = product + c;
  if (!Number.isFinite(sum)) return Math.fround(sum);
  // Knuth's TwoSum: the exact error of the addition.
  const bVirtual = sum - product;
  const error = product - (sum - bVirtual) + (c - bVirtual);
  if (error === 0) return Math.fround(sum);
  scratch[0] = sum;
  const low = scratchWords[LOW_WORD]!;
  if ((low & 1) === 0) {
    // Step one unit toward the exact value: up in magnitude when the error has the sum's sign.
    const away = error > 0 === sum > 0;
    const high = 1 - LOW_WORD;
    if (away)
      scratchWords[LOW_WORD] = low + 1; // even: no carry
    else if (low !== 0) scratchWords[LOW_WORD] = low - 1;
    else {
      scratchWords[LOW_WORD] = 0xffffffff;
      scratchWords[high] = scratchWords[high]! - 1;
    }
  }
  return Math.fround(scratch[0]!);
}
