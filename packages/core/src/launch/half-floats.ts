/**
 * The 16-bit floats, IEEE binary16 (`f16`, numpy's float16) and bfloat16
 * (`bf16`: f32's 8 exponent bits with 7 fraction bits), as JS numbers and as
 * their bits. Node 20 has neither `Math.f16round` nor `Float16Array`, so
 * these are written out: rounding is to nearest, ties to even, in one step
 * from the double (never through f32, which would round twice), with
 * subnormals kept and values beyond the largest finite one (after rounding)
 * giving an infinity, as the GPU's `cvt.rn.f16.f64` and `cvt.rn.bf16.f64` do.
 */

// The double's bits, for its exponent: one scratch view, read in the byte order of the platform.
const scratch64 = new Float64Array(1);
const words64 = new Uint32Array(scratch64.buffer);
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const scratch32 = new Float32Array(1);
const word32 = new Uint32Array(scratch32.buffer);

/** The unbiased binary exponent of a positive finite double (-1023 for a subnormal). */
function exponentOf(magnitude: number): number {
  scratch64[0] = magnitude;
  return ((words64[HIGH_WORD]! >>> 20) & 0x7ff) - 1023;
}

/**
 * A format of `precision` significant bits whose normal numbers start at
 * 2^minExponent: `magic[e - minExponent]` is 1.5 · 2^(e - precision + 53),
 * whose ulp as a double is the format's quantum in binade e (below 2^minExponent,
 * the subnormals share the quantum of binade minExponent). Adding it to a
 * magnitude of that binade rounds the magnitude to the quantum, to nearest
 * with ties to even, in the double addition's own single rounding (the
 * magic number is an even number of quanta); subtracting it again is exact.
 */
interface Format {
  readonly minExponent: number;
  /** The smallest magnitude that rounds to infinity: the largest finite value plus half its ulp. */
  readonly overflow: number;
  readonly magic: Float64Array;
}

function format(precision: number, minExponent: number, maxExponent: number): Format {
  const magic = new Float64Array(maxExponent - minExponent + 1);
  for (let e = minExponent; e <= maxExponent; e++) magic[e - minExponent] = 1.5 * 2 ** (e - precision + 53);
  const overflow = 2 ** (maxExponent + 1) - 2 ** (maxExponent - precision);
  return { minExponent, overflow, magic };
}

const FLOAT16 = format(11, -14, 15);
const BFLOAT16 = format(8, -126, 127);

function roundTo(f: Format, x: number): number {
  const magnitude = Math.abs(x);
  if (magnitude === 0 || magnitude !== magnitude) return x; // ±0 and NaN
  if (magnitude >= f.overflow) return x > 0 ? Infinity : -Infinity;
  const e = Math.max(exponentOf(magnitude), f.minExponent);
  const magic = f.magic[e - f.minExponent]!;
  const rounded = magnitude + magic - magic;
  return x < 0 ? -rounded : rounded;
}

/** `x` rounded to the nearest IEEE binary16 value (ties to even; subnormals kept; beyond 65504 + 16 an infinity). */
export function roundToFloat16(x: number): number {
  return roundTo(FLOAT16, x);
}

/** `x` rounded to the nearest bfloat16 value (ties to even; subnormals kept; infinity beyond the largest finite value plus half its ulp). */
export function roundToBfloat16(x: number): number {
  return roundTo(BFLOAT16, x);
}

/** The binary16 bits of `x` rounded to binary16 (NaN as the quiet NaN 0x7e00). */
export function float16Bits(x: number): number {
  const r = roundTo(FLOAT16, x);
  if (r !== r) return 0x7e00;
  const sign = r < 0 || Object.is(r, -0) ? 0x8000 : 0;
  const magnitude = Math.abs(r);
  if (magnitude === Infinity) return sign | 0x7c00;
  if (magnitude < 2 ** -14) return sign | (magnitude * 2 ** 24); // subnormal (or zero): a whole number of 2^-24
  const e = exponentOf(magnitude);
  return sign | ((e + 15) << 10) | (magnitude * 2 ** (10 - e) - 1024);
}

const FLOAT16_SCALES = Float64Array.from({ length: 31 }, (_, e) => 2 ** (Math.max(e, 1) - 25));

/** The value of binary16 bits (the low 16 bits of `bits`). */
export function float16FromBits(bits: number): number {
  const e = (bits >>> 10) & 0x1f;
  const m = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (e === 0x1f) return m === 0 ? sign * Infinity : Number.NaN;
  return sign * (e === 0 ? m : 1024 + m) * FLOAT16_SCALES[e]!;
}

/** The bfloat16 bits of `x` rounded to bfloat16 (NaN as the quiet NaN 0x7fc0). */
export function bfloat16Bits(x: number): number {
  const r = roundTo(BFLOAT16, x);
  if (r !== r) return 0x7fc0;
  scratch32[0] = r; // exact: every bfloat16 is an f32
  return word32[0]! >>> 16;
}

/** The value of bfloat16 bits (the low 16 bits of `bits`): the f32 whose high half they are. */
export function bfloat16FromBits(bits: number): number {
  word32[0] = (bits & 0xffff) << 16;
  return scratch32[0]!;
}
