import { CPU_DEVICE } from '../device.js';
import type { DType } from '../dtype.js';
import { ExporterClosedError, InvalidLayoutError } from '../errors.js';
import { checkInBuffer, checkShape, checkStrides, elementExtent } from '../layout.js';
import { StridedMemoryView } from '../strided-memory-view.js';

/** What a host adapter reads from an array object once (and caches per object). */
export interface HostLayout {
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly dtype: DType;
  /** DLPack flags (read-only, copied). */
  readonly flags: number;
  /** One past the last byte the layout reaches: a cheap re-check that the buffer still holds it (it may have been detached or shrunk). */
  readonly end: number;
}

/**
 * A checked layout of elements that start `offset` elements into a typed
 * region of `regionLength` elements at `regionByteOffset` in `buffer`.
 */
export function hostLayout(
  what: string,
  buffer: ArrayBufferLike,
  regionByteOffset: number,
  regionLength: number,
  offset: number,
  shape: readonly number[],
  strides: readonly number[],
  dtype: DType,
  flags: number,
): HostLayout {
  checkShape(shape, what);
  checkStrides(strides, shape, what);
  if (!Number.isSafeInteger(offset)) throw new InvalidLayoutError(`${what}: offset ${offset} is not an integer`);
  const itemsize = dtype.itemsize;
  // Bounds within the typed region the array library gave, not just the buffer.
  checkInBuffer(offset * itemsize, regionLength * itemsize, shape, strides, itemsize, what);
  const byteOffset = regionByteOffset + offset * itemsize;
  const [, hi] = elementExtent(shape, strides);
  return { buffer, byteOffset, shape: [...shape], strides: [...strides], dtype, flags, end: byteOffset + hi * itemsize };
}

/** A view of a cached host layout, after checking that its buffer still holds it. */
export function viewOfLayout(layout: HostLayout, exporter: unknown): StridedMemoryView {
  if (layout.buffer.byteLength < layout.end) {
    throw new ExporterClosedError(`the array's buffer no longer holds its data (${layout.buffer.byteLength} of ${layout.end} bytes): it was detached or shrunk`);
  }
  return new StridedMemoryView(undefined, layout.buffer, layout.byteOffset, layout.shape, layout.strides, layout.dtype, CPU_DEVICE, layout.flags, exporter, undefined, undefined, undefined);
}
