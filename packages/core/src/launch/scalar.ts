import { dtype, type DType } from '@cuda-js/memory-view';
import { bfloat16Bits, float16Bits } from './half-floats.js';
/**
 * Typed scalar kernel arguments: `launch(s, cfg, k, f32(2.5), i32(n))`. A
 * plain JS number is ambiguous (int or float? 4 or 8 bytes?), so these say it.
 */
export type ScalarType =
  | 'i8'
  | 'u8'
  | 'i16'
  | 'u16'
  | 'i32'
  | 'u32'
  | 'i64'
  | 'u64'
  | 'f16'
  | 'bf16'
  | 'f32'
  | 'f64'
  | 'bool';

/** The array element type (memory-view dtype name) of each scalar type. */
const DTYPE_NAMES: Readonly<Record<ScalarType, string>> = {
  i8: 'int8',
  u8: 'uint8',
  i16: 'int16',
  u16: 'uint16',
  i32: 'int32',
  u32: 'uint32',
  i64: 'int64',
  u64: 'uint64',
  f16: 'float16',
  bf16: 'bfloat16',
  f32: 'float32',
  f64: 'float64',
  bool: 'bool',
};

/** Whether `value` names a scalar type (`'f32'`, ...). */
export function isScalarType(value: unknown): value is ScalarType {
  return typeof value === 'string' && Object.hasOwn(DTYPE_NAMES, value);
}

/** The memory-view dtype of arrays of a scalar type (`f32` → `float32`). */
export function dtypeOfScalarType(type: ScalarType): DType {
  return dtype(DTYPE_NAMES[type]);
}

/** @internal Bytes of each scalar type as a kernel parameter. */
export const SCALAR_SIZES: Readonly<Record<ScalarType, number>> = {
  i8: 1,
  u8: 1,
  i16: 2,
  u16: 2,
  i32: 4,
  u32: 4,
  i64: 8,
  u64: 8,
  f16: 2,
  bf16: 2,
  f32: 4,
  f64: 8,
  bool: 1,
};

/**
 * A number or bigint tagged with its C type. `T` is the type, so that a
 * launch typed from a kernel's signature tells an `f32(2)` (a number) from an
 * `i64(2n)` (a bigint) at compile time.
 */
export class Scalar<T extends ScalarType = ScalarType> {
  /** Size in bytes. */
  readonly size: number;
  private constructor(
    readonly type: T,
    readonly value: number | bigint,
  ) {
    this.size = SCALAR_SIZES[type];
    Object.freeze(this);
  }

  /** @internal */
  static of<T extends ScalarType>(type: T, value: number | bigint | boolean): Scalar<T> {
    return new Scalar(type, check(type, value));
  }

  /** Writes the value at `offset` of `view` (little-endian, as the GPU reads it). */
  writeTo(view: DataView, offset: number): void {
    const v = this.value;
    switch (this.type) {
      case 'i8':
        view.setInt8(offset, v as number);
        break;
      case 'u8':
      case 'bool':
        view.setUint8(offset, v as number);
        break;
      case 'i16':
        view.setInt16(offset, v as number, true);
        break;
      case 'u16':
        view.setUint16(offset, v as number, true);
        break;
      case 'f16':
        view.setUint16(offset, float16Bits(v as number), true);
        break;
      case 'bf16':
        view.setUint16(offset, bfloat16Bits(v as number), true);
        break;
      case 'i32':
        view.setInt32(offset, v as number, true);
        break;
      case 'u32':
        view.setUint32(offset, v as number, true);
        break;
      case 'f32':
        view.setFloat32(offset, v as number, true);
        break;
      case 'f64':
        view.setFloat64(offset, v as number, true);
        break;
      case 'i64':
        view.setBigInt64(offset, v as bigint, true);
        break;
      case 'u64':
        view.setBigUint64(offset, v as bigint, true);
        break;
    }
  }

  toString(): string {
    return `${this.type}(${String(this.value)})`;
  }
}

const INT_RANGES: Partial<Record<ScalarType, [number, number]>> = {
  i8: [-128, 127],
  u8: [0, 255],
  i16: [-32768, 32767],
  u16: [0, 65535],
  i32: [-(2 ** 31), 2 ** 31 - 1],
  u32: [0, 2 ** 32 - 1],
};

function check(type: ScalarType, value: number | bigint | boolean): number | bigint {
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw new TypeError(`bool() takes a boolean, got ${typeof value}`);
    return value ? 1 : 0;
  }
  if (type === 'i64' || type === 'u64') {
    const v = typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
    if (typeof v !== 'bigint') throw new TypeError(`${type}() takes a bigint or a safe integer, got ${String(value)}`);
    const [lo, hi] = type === 'i64' ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
    if (v < lo || v > hi) throw new RangeError(`${type}(): ${v} is outside [${lo}, ${hi}]`);
    return v;
  }
  if (typeof value !== 'number') throw new TypeError(`${type}() takes a number, got ${typeof value}`);
  const range = INT_RANGES[type];
  if (range) {
    if (!Number.isInteger(value)) throw new TypeError(`${type}() takes an integer, got ${value}`);
    if (value < range[0] || value > range[1])
      throw new RangeError(`${type}(): ${value} is outside [${range[0]}, ${range[1]}]`);
  }
  return value;
}

export const i8 = (v: number): Scalar<'i8'> => Scalar.of('i8', v);
export const u8 = (v: number): Scalar<'u8'> => Scalar.of('u8', v);
export const i16 = (v: number): Scalar<'i16'> => Scalar.of('i16', v);
export const u16 = (v: number): Scalar<'u16'> => Scalar.of('u16', v);
export const i32 = (v: number): Scalar<'i32'> => Scalar.of('i32', v);
export const u32 = (v: number): Scalar<'u32'> => Scalar.of('u32', v);
export const i64 = (v: bigint | number): Scalar<'i64'> => Scalar.of('i64', v);
export const u64 = (v: bigint | number): Scalar<'u64'> => Scalar.of('u64', v);
export const f16 = (v: number): Scalar<'f16'> => Scalar.of('f16', v);
/** A bfloat16 scalar (8 exponent bits, as f32, and 7 fraction bits), written rounded to nearest even. */
export const bf16 = (v: number): Scalar<'bf16'> => Scalar.of('bf16', v);
export const f32 = (v: number): Scalar<'f32'> => Scalar.of('f32', v);
export const f64 = (v: number): Scalar<'f64'> => Scalar.of('f64', v);
export const bool = (v: boolean): Scalar<'bool'> => Scalar.of('bool', v);
