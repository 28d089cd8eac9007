import { CPU_DEVICE } from '../device.js';
import type { DType } from '../dtype.js';
import { ExporterClosedError, InvalidLayoutError, OutOfBoundsError } from '../errors.js';
import { formatValue } from '../format-value.js';
import { bufferByteLength } from '../host-buffer.js';
import { checkInBuffer, elementExtent, readShape, readStrides } from '../layout.js';
import { StridedMemoryView } from '../strided-memory-view.js';
import { CHECKED_VIEW_INIT } from '../view-init.js';

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
  regionByteOffset: unknown,
  regionLength: unknown,
  offset: unknown,
  shape: unknown,
  strides: unknown,
  dtype: DType,
  flags: number,
): HostLayout {
  const ownShape = readShape(shape, what);
  const ownStrides = readStrides(strides, ownShape, what);
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset))
    throw new InvalidLayoutError(`${what}: offset ${formatValue(offset)} is not an integer`);
  const itemsize = dtype.itemsize;
  // The region that the array library claims must lie in the buffer, as the engine measures it.
  const bufferLength = bufferByteLength(buffer);
  if (
    typeof regionByteOffset !== 'number' ||
    !Number.isSafeInteger(regionByteOffset) ||
    regionByteOffset < 0 ||
    typeof regionLength !== 'number' ||
    !Number.isSafeInteger(regionLength) ||
    regionLength < 0 ||
    !(regionByteOffset + regionLength * itemsize <= bufferLength)
  ) {
    throw new OutOfBoundsError(
      `${what}: its data claims ${formatValue(regionLength)} elements at byte ${formatValue(regionByteOffset)} of a ${bufferLength}-byte buffer`,
    );
  }
  // Bounds within the typed region the array library gave, not just the buffer.
  checkInBuffer(offset * itemsize, regionLength * itemsize, ownShape, ownStrides, itemsize, what);
  const byteOffset = regionByteOffset + offset * itemsize;
  const [, hi] = elementExtent(ownShape, ownStrides);
  return {
    buffer,
    byteOffset,
    shape: ownShape,
    strides: ownStrides,
    dtype,
    flags,
    end: byteOffset + Math.ceil(hi * itemsize),
  };
}

/** A view of a cached host layout, after checking that its buffer still holds it. */
export function viewOfLayout(layout: HostLayout, exporter: unknown): StridedMemoryView {
  const length = bufferByteLength(layout.buffer);
  if (length < layout.end) {
    throw new ExporterClosedError(
      `the array's buffer no longer holds its data (${length} of ${layout.end} bytes): it was detached or shrunk`,
    );
  }
  return new StridedMemoryView(
    {
      ptr: undefined,
      buffer: layout.buffer,
      byteOffset: layout.byteOffset,
      shape: layout.shape,
      strides: layout.strides,
      dtype: layout.dtype,
      device: CPU_DEVICE,
      flags: layout.flags,
      exporter,
      stream: undefined,
      source: undefined,
      lease: undefined,
    },
    CHECKED_VIEW_INIT,
  );
}
