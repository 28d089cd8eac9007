import { type DType, dtype as toDType, DLDataTypeCode } from './dtype.js';
import { measureView } from './host-buffer.js';

/** Any of JS's typed arrays. */
export type AnyTypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** A typed array constructor. */
export type TypedArrayConstructor = {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): AnyTypedArray;
  new (length: number): AnyTypedArray;
  readonly BYTES_PER_ELEMENT: number;
};

// Float16Array is in newer engines only; float16 data is read as its bits otherwise.
const Float16ArrayCtor = (globalThis as { Float16Array?: TypedArrayConstructor }).Float16Array;

// By the engine's own name of the element type (`%TypedArray%.prototype[Symbol.toStringTag]`),
// which a subclass, a Node Buffer or a changed `constructor` property does not change.
const BY_KIND = new Map<string, DType>([
  ['Int8Array', toDType('int8')],
  ['Uint8Array', toDType('uint8')],
  ['Uint8ClampedArray', toDType('uint8')],
  ['Int16Array', toDType('int16')],
  ['Uint16Array', toDType('uint16')],
  ['Int32Array', toDType('int32')],
  ['Uint32Array', toDType('uint32')],
  ['Float32Array', toDType('float32')],
  ['Float64Array', toDType('float64')],
  ['BigInt64Array', toDType('int64')],
  ['BigUint64Array', toDType('uint64')],
]);
if (Float16ArrayCtor) BY_KIND.set('Float16Array', toDType('float16'));

/** The dtype of a typed array's elements by its intrinsic kind (see {@link measureView}), or undefined. */
export function dtypeOfKind(kind: string): DType | undefined {
  return BY_KIND.get(kind);
}

/**
 * The dtype of a typed array's elements (`Float32Array` → float32, `Buffer` →
 * uint8), or undefined for something else (a DataView, a look-alike).
 */
export function dtypeOfTypedArray(array: ArrayBufferView): DType | undefined {
  const measured = measureView(array);
  return measured === undefined ? undefined : BY_KIND.get(measured.kind);
}

/**
 * The typed array that holds elements of `dtype`, and how many of its entries
 * make one element (2 for complex, `lanes` for vectors). Types without a JS
 * counterpart are read as their bits: bfloat16 and float16 (where Float16Array
 * is missing) as Uint16Array, float8 and bool as Uint8Array. Packed sub-byte
 * types have none (undefined).
 */
export function typedArrayFor(t: DType): { ctor: TypedArrayConstructor; perElement: number } | undefined {
  if (t.isSubByte) return undefined;
  let ctor: TypedArrayConstructor | undefined;
  let parts = 1;
  switch (t.code) {
    case DLDataTypeCode.Int:
      ctor = (
        { 8: Int8Array, 16: Int16Array, 32: Int32Array, 64: BigInt64Array } as Record<number, TypedArrayConstructor>
      )[t.bits];
      break;
    case DLDataTypeCode.UInt:
    case DLDataTypeCode.OpaqueHandle:
      ctor = (
        { 8: Uint8Array, 16: Uint16Array, 32: Uint32Array, 64: BigUint64Array } as Record<number, TypedArrayConstructor>
      )[t.bits];
      break;
    case DLDataTypeCode.Float:
      ctor = t.bits === 16 ? (Float16ArrayCtor ?? Uint16Array) : t.bits === 32 ? Float32Array : Float64Array;
      break;
    case DLDataTypeCode.Complex:
      parts = 2;
      ctor = t.bits === 32 ? (Float16ArrayCtor ?? Uint16Array) : t.bits === 64 ? Float32Array : Float64Array;
      break;
    case DLDataTypeCode.Bfloat:
      ctor = Uint16Array;
      break;
    default:
      // bool and the float8 kinds: one byte each
      ctor = Uint8Array;
      parts = t.bits / 8;
  }
  if (ctor === undefined) return undefined;
  return { ctor, perElement: parts * t.lanes };
}
