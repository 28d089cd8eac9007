import { bfloat16Bits, float16Bits } from './half-floats.js';
import { Scalar, type ScalarType } from './scalar.js';

const TWO_32 = 4294967296;

/**
 * Writes a safe integer as a 64-bit two's-complement little-endian value
 * without making a BigInt (array extents and strides on every launch).
 */
export function writeInt64(view: DataView, offset: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  view.setUint32(offset, n - hi * TWO_32, true);
  view.setInt32(offset + 4, hi, true);
}

/**
 * Writes `value` at `offset` as a kernel parameter of `type`: a JS number, a
 * bigint, a boolean (for `bool`) or a core {@link Scalar} (whose value is
 * written as `type`), each range-checked as `Scalar.of` checks it. Returns
 * false, writing nothing, when the value does not fit: the caller says why
 * with {@link scalarMismatch}. The common pairs (a number for a float or an
 * i32, a bigint for an i64, a boolean for a bool) take no other step.
 */
export function writeScalarValue(view: DataView, offset: number, type: ScalarType, value: unknown): boolean {
  if (typeof value === 'number') {
    switch (type) {
      case 'f64':
        view.setFloat64(offset, value, true);
        return true;
      case 'f32':
        view.setFloat32(offset, value, true);
        return true;
      case 'i32':
        if ((value | 0) === value) {
          view.setInt32(offset, value, true);
          return true;
        }
        return false;
      case 'u32':
        if (value >>> 0 === value) {
          view.setUint32(offset, value, true);
          return true;
        }
        return false;
      case 'i16':
        if ((value << 16) >> 16 === value) {
          view.setInt16(offset, value, true);
          return true;
        }
        return false;
      case 'u16':
        if ((value & 0xffff) === value) {
          view.setUint16(offset, value, true);
          return true;
        }
        return false;
      case 'i8':
        if ((value << 24) >> 24 === value) {
          view.setInt8(offset, value);
          return true;
        }
        return false;
      case 'u8':
        if ((value & 0xff) === value) {
          view.setUint8(offset, value);
          return true;
        }
        return false;
      case 'i64':
        if (Number.isSafeInteger(value)) {
          writeInt64(view, offset, value);
          return true;
        }
        return false;
      case 'u64':
        if (Number.isSafeInteger(value) && value >= 0) {
          writeInt64(view, offset, value);
          return true;
        }
        return false;
      case 'f16':
        view.setUint16(offset, float16Bits(value), true);
        return true;
      case 'bf16':
        view.setUint16(offset, bfloat16Bits(value), true);
        return true;
      case 'bool':
        return false;
    }
  }
  if (typeof value === 'bigint') {
    if (type === 'i64') {
      if (BigInt.asIntN(64, value) !== value) return false;
      view.setBigInt64(offset, value, true);
      return true;
    }
    if (type === 'u64') {
      if (BigInt.asUintN(64, value) !== value) return false;
      view.setBigUint64(offset, value, true);
      return true;
    }
    const n = exactNumber(value);
    return n !== undefined && writeScalarValue(view, offset, type, n);
  }
  if (typeof value === 'boolean') {
    if (type !== 'bool') return false;
    view.setUint8(offset, value ? 1 : 0);
    return true;
  }
  if (value instanceof Scalar)
    return writeScalarValue(view, offset, type, value.type === 'bool' ? value.value !== 0 : value.value);
  return false;
}

/** A bigint as the number of the same value, where a number holds it exactly. */
function exactNumber(value: bigint): number | undefined {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : undefined;
}

/** Why {@link writeScalarValue} refused `value` for `type` (Scalar.of's own words where it has them). */
export function scalarMismatch(type: ScalarType, value: unknown): string {
  const what = describeValue(value);
  let inner: unknown = value instanceof Scalar ? (value.type === 'bool' ? value.value !== 0 : value.value) : value;
  if (typeof inner === 'bigint' && type !== 'i64' && type !== 'u64') inner = exactNumber(inner) ?? inner;
  if (typeof inner === 'number' || typeof inner === 'bigint' || typeof inner === 'boolean') {
    try {
      Scalar.of(type, inner);
    } catch (error) {
      return `${what} cannot be passed as ${type}: ${(error as Error).message}`;
    }
  }
  return `${what} cannot be passed as ${type}; pass a number, a bigint, a boolean (for bool) or a typed scalar such as ${type}(x)`;
}

function describeValue(value: unknown): string {
  if (value instanceof Scalar) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  const kind = typeof value === 'object' ? ((value as object).constructor?.name ?? 'object') : typeof value;
  return `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`;
}
