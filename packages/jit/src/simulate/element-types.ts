import type { ScalarName } from '../typing/jit-types.js';

/** The typed array that holds one scalar type's elements in host memory. */
export type ElementArrayConstructor =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

export type ElementArray = InstanceType<ElementArrayConstructor>;

/**
 * The runtime functions (simulator-runtime.ts) that read and write the
 * elements of a type stored as its bits: f16 and bf16, whose values the
 * generated code holds as numbers (Node 20 has no Float16Array).
 */
export interface ElementBits {
  readonly encode: 'float16Bits' | 'bfloat16Bits';
  readonly decode: 'float16FromBits' | 'bfloat16FromBits';
}

interface ElementType {
  /** The memory-view dtype name of arrays of this type. */
  readonly dtypeName: string;
  /** Bool elements are bytes (0 or 1), as the GPU stores them; f16 and bf16 ones their 16 bits. */
  readonly arrayConstructor: ElementArrayConstructor;
  /** Set for f16 and bf16: how their bits become values and back. */
  readonly bits?: ElementBits;
}

/** How each kernel scalar type is stored in an array. */
export const ELEMENT_TYPES: Readonly<Record<ScalarName, ElementType>> = Object.freeze({
  bool: { dtypeName: 'bool', arrayConstructor: Uint8Array },
  i8: { dtypeName: 'int8', arrayConstructor: Int8Array },
  u8: { dtypeName: 'uint8', arrayConstructor: Uint8Array },
  i16: { dtypeName: 'int16', arrayConstructor: Int16Array },
  u16: { dtypeName: 'uint16', arrayConstructor: Uint16Array },
  i32: { dtypeName: 'int32', arrayConstructor: Int32Array },
  u32: { dtypeName: 'uint32', arrayConstructor: Uint32Array },
  i64: { dtypeName: 'int64', arrayConstructor: BigInt64Array },
  u64: { dtypeName: 'uint64', arrayConstructor: BigUint64Array },
  f16: {
    dtypeName: 'float16',
    arrayConstructor: Uint16Array,
    bits: { encode: 'float16Bits', decode: 'float16FromBits' },
  },
  bf16: {
    dtypeName: 'bfloat16',
    arrayConstructor: Uint16Array,
    bits: { encode: 'bfloat16Bits', decode: 'bfloat16FromBits' },
  },
  f32: { dtypeName: 'float32', arrayConstructor: Float32Array },
  f64: { dtypeName: 'float64', arrayConstructor: Float64Array },
});
