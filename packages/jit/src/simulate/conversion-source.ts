import { bitsOf, isFloat, isSigned, type ScalarName } from '../typing/jit-types.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';

/** Ranges of the integer types held as numbers. */
export const INT_RANGES: Partial<Record<ScalarName, readonly [number, number]>> = {
  i8: [-(2 ** 7), 2 ** 7 - 1],
  u8: [0, 2 ** 8 - 1],
  i16: [-(2 ** 15), 2 ** 15 - 1],
  u16: [0, 2 ** 16 - 1],
  i32: [-(2 ** 31), 2 ** 31 - 1],
  u32: [0, 2 ** 32 - 1],
};

/** Wraps an integer-valued number (exact, any magnitude below 2^53) to an integer type of 32 bits or fewer. */
function wrapNumber(code: string, to: ScalarName): string {
  switch (to) {
    case 'i8':
      return `(${code} << 24 >> 24)`;
    case 'u8':
      return `(${code} & 255)`;
    case 'i16':
      return `(${code} << 16 >> 16)`;
    case 'u16':
      return `(${code} & 65535)`;
    case 'i32':
      return `(${code} | 0)`;
    case 'u32':
      return `(${code} >>> 0)`;
    default:
      throw new Error(`simulator: ${to} is not a narrow integer type`);
  }
}

/** Whether every value of integer type `from` is a value of `to` (no wrap needed). */
function fits(from: ScalarName, to: ScalarName): boolean {
  const a = INT_RANGES[from];
  const b = INT_RANGES[to];
  return a !== undefined && b !== undefined && a[0] >= b[0] && a[1] <= b[1];
}

/**
 * Source for `convert` (typed-ir.ts's rules): int→int wraps, int→float
 * (and float→narrower float: f16 and bf16 are numbers rounded to them) rounds to nearest once, float→int truncates and saturates (NaN → 0),
 * anything→bool is `x != 0` (NaN → false), bool→number is 0 or 1.
 * `numberBound` is the i64 result's bound where it is held as a number (see
 * I64NumberRanges), which happens only from bool and the 32-bit-or-narrower integers.
 */
export function convertSource(value: GeneratedValue, to: ScalarName, numberBound: number | undefined): GeneratedValue {
  const from = value.type;
  const x = value.code;
  const out = (code: string): GeneratedValue => ({ code, type: to });
  if (from === to) return value;
  // JS truthiness is exactly `x != 0` with NaN false, for numbers and bigints alike.
  if (to === 'bool') return out(`(!!${x})`);
  if (from === 'bool') {
    if (to === 'u64') return out(`(${x} ? 1n : 0n)`);
    if (to === 'i64')
      return numberBound !== undefined ? { code: `(${x} ? 1 : 0)`, type: to, numberBound } : out(`(${x} ? 1n : 0n)`);
    return out(`(${x} ? 1 : 0)`);
  }
  if (isFloat(from)) {
    if (to === 'f64') return out(x); // every f32 (f16, bf16) is an f64
    if (to === 'f32') return out(from === 'f64' ? `Math.fround(${x})` : x); // every f16 and bf16 is an f32
    if (to === 'f16') return out(`roundToFloat16(${x})`);
    if (to === 'bf16') return out(`roundToBfloat16(${x})`);
    if (to === 'i64') return out(`floatToI64(${x})`);
    if (to === 'u64') return out(`floatToU64(${x})`);
    const [lowest, highest] = INT_RANGES[to]!;
    return out(`floatToInt(${x}, ${lowest}, ${highest})`);
  }
  // From an integer.
  const fromBigint = (from === 'i64' || from === 'u64') && value.numberBound === undefined;
  if (to === 'f64') return out(fromBigint ? `Number(${x})` : x); // Number(bigint) rounds to nearest once
  if (to === 'f32') return out(fromBigint ? `bigintToFloat32(${x})` : `Math.fround(${x})`);
  if (to === 'f16') return out(fromBigint ? `bigintToFloat16(${x})` : `roundToFloat16(${x})`);
  if (to === 'bf16') return out(fromBigint ? `bigintToBfloat16(${x})` : `roundToBfloat16(${x})`);
  if (to === 'i64') {
    if (numberBound !== undefined) return { code: x, type: to, numberBound }; // a narrow integer is its own value
    return out(from === 'u64' ? `BigInt.asIntN(64, ${x})` : `BigInt(${x})`);
  }
  if (to === 'u64') {
    if (from === 'i64') return out(`BigInt.asUintN(64, ${bigintCode(value)})`);
    return out(isSigned(from) ? `BigInt.asUintN(64, BigInt(${x}))` : `BigInt(${x})`);
  }
  // To an integer of 32 bits or fewer.
  if (fromBigint) return out(`Number(BigInt.as${isSigned(to) ? 'Int' : 'Uint'}N(${bitsOf(to)}, ${x}))`);
  if (fits(from, to)) return out(x);
  return out(wrapNumber(x, to));
}
