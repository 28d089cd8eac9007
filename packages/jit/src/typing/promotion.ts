import { bitsOf, isFloat, isSigned, type ScalarName } from './jit-types.js';

/**
 * The type of a value before it is fixed: a concrete scalar type, or a
 * literal that takes the type of what it meets (`x * 2` is f32 for an f32
 * `x`), as constants do in Go. A literal standing alone is i32 (an integer
 * that fits), i64 (a larger safe integer) or f64.
 */
export type ValueType = ScalarName | 'int-literal' | 'float-literal';

/** The type arithmetic happens in: bool, i8, u8, i16 and u16 become i32, as C and JavaScript do. */
export function arithmeticType(t: ScalarName): ScalarName {
  return t === 'bool' || t === 'i8' || t === 'u8' || t === 'i16' || t === 'u16' ? 'i32' : t;
}

function intOfBits(bits: number, signed: boolean): ScalarName {
  const b = bits <= 32 ? 32 : 64;
  return (signed ? `i${b}` : `u${b}`) as ScalarName;
}

/**
 * The common type of two concrete types for arithmetic and comparison:
 * f64 wins; two different floats of 32 bits or fewer give f32 (f16 with
 * bf16 too: neither holds the other); a float (f16, bf16, f32) with a small
 * integer (8 or 16 bits, or bool) stays that float, with a 32- or 64-bit
 * integer becomes f64 (as numba does for f32); integers of one signedness
 * take the wider; mixed signedness takes a signed type wide enough for both
 * (i32 and u32 give i64; 64-bit mixes give i64).
 */
export function promote(a: ScalarName, b: ScalarName): ScalarName {
  if (a === b) return arithmeticType(a);
  if (isFloat(a) || isFloat(b)) {
    if (a === 'f64' || b === 'f64') return 'f64';
    if (isFloat(a) && isFloat(b)) return 'f32';
    const [float, other] = isFloat(a) ? [a, b] : [b, a];
    return bitsOf(other) <= 16 ? float : 'f64';
  }
  const x = arithmeticType(a);
  const y = arithmeticType(b);
  if (x === y) return x;
  const sx = isSigned(x);
  const sy = isSigned(y);
  if (sx === sy) return bitsOf(x) >= bitsOf(y) ? x : y;
  const signed = sx ? x : y;
  const unsigned = sx ? y : x;
  if (bitsOf(signed) > bitsOf(unsigned)) return signed;
  return intOfBits(Math.min(64, bitsOf(unsigned) * 2), true);
}

/** The concrete type a literal takes where nothing else decides. */
export function defaultLiteralType(kind: 'int-literal' | 'float-literal', value: number | undefined): ScalarName {
  if (kind === 'float-literal') return 'f64';
  if (value === undefined || (value >= -(2 ** 31) && value <= 2 ** 31 - 1)) return 'i32';
  return Number.isSafeInteger(value) ? 'i64' : 'f64';
}

/** The common type of a literal and a concrete type: the concrete one, except a float literal with an integer gives f64. */
function withLiteral(literal: 'int-literal' | 'float-literal', t: ScalarName): ScalarName {
  if (literal === 'int-literal') return arithmeticType(t);
  return isFloat(t) ? t : 'f64';
}

/** {@link promote} over value types; two literals stay a literal (float wins). */
export function promoteValues(a: ValueType, b: ValueType): ValueType {
  const la = a === 'int-literal' || a === 'float-literal';
  const lb = b === 'int-literal' || b === 'float-literal';
  if (la && lb) return a === 'float-literal' || b === 'float-literal' ? 'float-literal' : 'int-literal';
  if (la) return withLiteral(a, b as ScalarName);
  if (lb) return withLiteral(b, a as ScalarName);
  return promote(a as ScalarName, b as ScalarName);
}

/**
 * The type of a variable that holds values of both types: the same type,
 * else as {@link promote} (small types are kept when both agree).
 */
export function join(a: ValueType | undefined, b: ValueType): ValueType {
  if (a === undefined || a === b) return b;
  if (a === 'bool' && b === 'bool') return 'bool';
  return promoteValues(a, b);
}

/** Significant bits of each float type: an integer of at most this many bits is exact in it. */
const PRECISION: Readonly<Partial<Record<ScalarName, number>>> = { f16: 11, bf16: 8, f32: 24, f64: 53 };

/**
 * Whether a value of type `from` goes into a variable or parameter of type
 * `to` without losing anything (a widening), so that it may be implicit:
 * a float into a float with as much range and precision (f16 and bf16 into
 * f32 and f64, not into each other), an integer into a float whose
 * significand holds all its bits (8-bit ones into f16 and bf16).
 */
export function isWidening(from: ScalarName, to: ScalarName): boolean {
  if (from === to) return true;
  if (to === 'bool' || from === 'bool') return from === 'bool' && to !== 'bool';
  if (isFloat(to)) return isFloat(from) ? bitsOf(to) > bitsOf(from) : bitsOf(from) <= PRECISION[to]!;
  if (isFloat(from)) return false;
  if (isSigned(from) === isSigned(to)) return bitsOf(to) >= bitsOf(from);
  return isSigned(to) && bitsOf(to) > bitsOf(from);
}
