import { DLPackFlags } from './protocols.js';
import { CPU_DEVICE } from './device.js';
import { dtype as toDType } from './dtype.js';
import { ExporterClosedError, InvalidLayoutError } from './errors.js';
import { formatValue } from './format-value.js';
import { bufferByteLength, isArrayBufferLike, isDetached, measureView } from './host-buffer.js';
import { checkInBuffer, compactStrides, readShape, readStrides } from './layout.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { CHECKED_VIEW_INIT } from './view-init.js';
import type { BufferViewOptions } from './view-options.js';

/**
 * @internal `StridedMemoryView.fromBuffer`. A typed array or DataView bounds
 * the view by its own region of the buffer, not by the whole buffer.
 */
export function viewFromBuffer(
  source: ArrayBufferLike | ArrayBufferView,
  options: BufferViewOptions = {},
): StridedMemoryView {
  // Measured by the engine's own getters: own properties that lie change nothing.
  const measured = measureView(source);
  let buffer: ArrayBufferLike;
  let base: number;
  let limit: number;
  if (measured !== undefined) {
    buffer = measured.buffer;
    base = measured.byteOffset;
    limit = measured.byteLength;
  } else if (isArrayBufferLike(source)) {
    buffer = source;
    base = 0;
    limit = bufferByteLength(source);
  } else {
    throw new TypeError(
      `fromBuffer takes an ArrayBuffer, a SharedArrayBuffer or a typed array; got ${formatValue(source)}`,
    );
  }
  if (isDetached(buffer)) throw new ExporterClosedError('fromBuffer: the buffer is detached');
  const o: BufferViewOptions = options ?? {};
  const t = toDType(o.dtype ?? 'uint8');
  const offset: unknown = o.byteOffset ?? 0;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    throw new InvalidLayoutError(`fromBuffer: byteOffset must be a non-negative integer, got ${formatValue(offset)}`);
  const givenShape = o.shape;
  let shape: readonly number[];
  if (givenShape === undefined) {
    const count = (limit - offset) / t.itemsize;
    if (!Number.isInteger(count) || count < 0) {
      throw new InvalidLayoutError(
        `fromBuffer: ${limit - offset} bytes are not a whole number of ${t.name} elements; give a shape`,
      );
    }
    shape = [count];
  } else {
    shape = readShape(givenShape, 'fromBuffer');
  }
  const givenStrides = o.strides;
  const strides = givenStrides === undefined ? compactStrides(shape) : readStrides(givenStrides, shape, 'fromBuffer');
  checkInBuffer(offset, limit, shape, strides, t.itemsize, 'fromBuffer');
  const flags = o.readonly ? DLPackFlags.READ_ONLY : 0;
  return new StridedMemoryView(
    {
      ptr: undefined,
      buffer,
      byteOffset: base + offset,
      shape,
      strides,
      dtype: t,
      device: CPU_DEVICE,
      flags,
      exporter: o.exporter ?? source,
      stream: undefined,
      source: undefined,
      lease: undefined,
    },
    CHECKED_VIEW_INIT,
  );
}
