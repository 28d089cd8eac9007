import { DLPackFlags } from '../protocols.js';
import { dtype, type DType } from '../dtype.js';
import { NotViewableError } from '../errors.js';
import { isArrayBufferLike } from '../host-buffer.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import { hostLayout, viewOfLayout, type HostLayout } from './host-layout.js';

/** The fields of a stdlib ndarray (`@stdlib/ndarray`) that a view reads. */
export interface StdlibNdarrayLike {
  /** A typed array, or stdlib's Complex64Array / Complex128Array / BooleanArray. */
  readonly data: unknown;
  /** A stdlib data type name (`float64`, `complex64`, `uint8c`, `bool`, ...), or an object whose string is one. */
  readonly dtype: unknown;
  readonly shape: ArrayLike<number>;
  /** Strides in elements. */
  readonly strides: ArrayLike<number>;
  /** Index of element 0 in `data`. */
  readonly offset: number;
  readonly order: string;
  readonly flags?: { readonly READONLY?: boolean };
}

/** Whether `obj` looks like a stdlib ndarray (`data`, `dtype`, `shape`, `strides`, `offset`, `order`). */
export function isStdlibNdarray(obj: object): obj is StdlibNdarrayLike {
  return 'strides' in obj && 'order' in obj && 'offset' in obj && 'dtype' in obj && 'data' in obj && 'shape' in obj;
}

const STDLIB_DTYPES = new Map<string, DType>([
  ['float64', dtype('float64')],
  ['float32', dtype('float32')],
  ['float16', dtype('float16')],
  ['int8', dtype('int8')],
  ['int16', dtype('int16')],
  ['int32', dtype('int32')],
  ['int64', dtype('int64')],
  ['uint8', dtype('uint8')],
  ['uint8c', dtype('uint8')],
  ['uint16', dtype('uint16')],
  ['uint32', dtype('uint32')],
  ['uint64', dtype('uint64')],
  ['complex32', dtype('complex32')],
  ['complex64', dtype('complex64')],
  ['complex128', dtype('complex128')],
  ['bool', dtype('bool')],
  ['binary', dtype('uint8')],
]);

const layouts = new WeakMap<object, HostLayout>();

/** @internal */
export function viewFromStdlibNdarray(array: StdlibNdarrayLike): StridedMemoryView {
  let layout = layouts.get(array);
  if (layout === undefined) {
    const name = String(array.dtype);
    const t = STDLIB_DTYPES.get(name);
    if (t === undefined) throw new NotViewableError(`a stdlib ndarray of dtype '${name}' has no typed memory to view`);
    // Typed arrays, and stdlib's complex and boolean arrays, all expose buffer/byteOffset/length.
    const data = array.data as { buffer?: unknown; byteOffset?: unknown; length?: unknown; BYTES_PER_ELEMENT?: unknown } | null;
    if (data === null || typeof data !== 'object' || !isArrayBufferLike(data.buffer) || typeof data.byteOffset !== 'number' || typeof data.length !== 'number') {
      throw new NotViewableError(`this stdlib ndarray keeps its data in ${Object.prototype.toString.call(data)}, which has no buffer to view`);
    }
    if (typeof data.BYTES_PER_ELEMENT === 'number' && data.BYTES_PER_ELEMENT !== t.itemsize) {
      throw new NotViewableError(`this stdlib ndarray says dtype '${name}' (${t.itemsize} bytes) but its data has ${data.BYTES_PER_ELEMENT}-byte elements`);
    }
    const flags = array.flags?.READONLY === true ? DLPackFlags.READ_ONLY : 0;
    layout = hostLayout('stdlib ndarray', data.buffer, data.byteOffset, data.length, array.offset, Array.from(array.shape), Array.from(array.strides), t, flags);
    layouts.set(array, layout);
  }
  return viewOfLayout(layout, array);
}
