/**
 * `@cuda-js/memory-view/adapters/stdlib-ndarray`: importing it lets
 * `StridedMemoryView.fromAny` and `fromStdlibNdarray` view stdlib ndarrays
 * (`@stdlib/ndarray`) zero-copy. It exports nothing.
 *
 * @module
 */
import { DLPackFlags } from '../protocols.js';
import { dtype, type DType } from '../dtype.js';
import { InvalidLayoutError, NotViewableError } from '../errors.js';
import { formatValue } from '../format-value.js';
import { isArrayBufferLike, measureView } from '../host-buffer.js';
import { MAX_NDIM } from '../layout.js';
import { dtypeOfKind } from '../typed-arrays.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import type { StdlibNdarrayLike } from './host-arrays.js';
import { hostLayout, viewOfLayout, type HostLayout } from './host-layout.js';
import { registerHostAdapter } from './registry.js';

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

/** An array-like's entries, read once each, into an array (at most 64: a view has no more dimensions). */
function toArray(value: unknown, name: string): unknown[] {
  if (value === null || typeof value !== 'object')
    throw new InvalidLayoutError(`stdlib ndarray: ${name} is ${formatValue(value)}; expected an array`);
  const n: unknown = (value as ArrayLike<unknown>).length;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_NDIM)
    throw new InvalidLayoutError(
      `stdlib ndarray: ${name} has ${formatValue(n)} entries; a view has 0 to ${MAX_NDIM} dimensions`,
    );
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) out[i] = (value as ArrayLike<unknown>)[i];
  return out;
}

/** A zero-copy view of a stdlib ndarray, read-only where it is, its layout read once per ndarray. */
function viewFromStdlibNdarray(array: StdlibNdarrayLike): StridedMemoryView {
  let layout = layouts.get(array);
  if (layout === undefined) {
    const given: unknown = array.dtype;
    let name: string;
    try {
      name = String(given);
    } catch {
      throw new NotViewableError(`a stdlib ndarray of dtype ${formatValue(given)} has no typed memory to view`);
    }
    const t = STDLIB_DTYPES.get(name);
    if (t === undefined) throw new NotViewableError(`a stdlib ndarray of dtype '${name}' has no typed memory to view`);
    // Typed arrays, and stdlib's complex and boolean arrays, all expose buffer/byteOffset/length.
    const data = array.data as {
      buffer?: unknown;
      byteOffset?: unknown;
      length?: unknown;
      BYTES_PER_ELEMENT?: unknown;
    } | null;
    // A typed array is measured by the engine; stdlib's complex and boolean arrays by
    // their fields, read once each (hostLayout checks that they lie inside the buffer).
    const m = measureView(data);
    let buffer: unknown, byteOffset: unknown, length: unknown, bytesPerElement: unknown;
    if (m !== undefined) {
      if (m.kind === 'DataView')
        throw new NotViewableError('this stdlib ndarray keeps its data in a DataView, of no element type');
      const kindType = dtypeOfKind(m.kind);
      ({ buffer, byteOffset, length } = m);
      bytesPerElement = kindType?.itemsize;
    } else if (data !== null && typeof data === 'object') {
      buffer = data.buffer;
      byteOffset = data.byteOffset;
      length = data.length;
      bytesPerElement = data.BYTES_PER_ELEMENT;
    }
    if (!isArrayBufferLike(buffer) || typeof byteOffset !== 'number' || typeof length !== 'number') {
      throw new NotViewableError(
        `this stdlib ndarray keeps its data in ${formatValue(data)}, which has no buffer to view`,
      );
    }
    if (typeof bytesPerElement === 'number' && bytesPerElement !== t.itemsize) {
      throw new NotViewableError(
        `this stdlib ndarray says dtype '${name}' (${t.itemsize} bytes) but its data has ${bytesPerElement}-byte elements`,
      );
    }
    const flagsObject: unknown = array.flags;
    const readonly =
      flagsObject !== null &&
      typeof flagsObject === 'object' &&
      (flagsObject as { READONLY?: unknown }).READONLY === true;
    const flags = readonly ? DLPackFlags.READ_ONLY : 0;
    layout = hostLayout(
      'stdlib ndarray',
      buffer,
      byteOffset,
      length,
      array.offset,
      toArray(array.shape, 'shape'),
      toArray(array.strides, 'strides'),
      t,
      flags,
    );
    layouts.set(array, layout);
  }
  return viewOfLayout(layout, array);
}

registerHostAdapter('stdlib-ndarray', viewFromStdlibNdarray);
