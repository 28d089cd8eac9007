import { formatValue } from '../format-value.js';
import { CPU_DEVICE } from '../device.js';
import { dtype, type DType } from '../dtype.js';
import { ExporterClosedError, NotViewableError } from '../errors.js';
import { bufferByteLength, isDetached, measureView } from '../host-buffer.js';
import { ONE_STRIDE } from '../layout.js';
import { dtypeOfKind } from '../typed-arrays.js';
import { StridedMemoryView } from '../strided-memory-view.js';
import { CHECKED_VIEW_INIT } from '../view-init.js';

const UINT8 = dtype('uint8');

/** A 1-d compact host view of `length` elements at `byteOffset` of a buffer that the engine measured. */
function compactHostView(
  buffer: ArrayBufferLike,
  byteOffset: number,
  length: number,
  t: DType,
  exporter: unknown,
): StridedMemoryView {
  return new StridedMemoryView(
    {
      ptr: undefined,
      buffer,
      byteOffset,
      shape: [length],
      strides: ONE_STRIDE,
      dtype: t,
      device: CPU_DEVICE,
      flags: 0,
      exporter,
      stream: undefined,
      source: undefined,
      lease: undefined,
    },
    CHECKED_VIEW_INIT,
  );
}

/** @internal A 1-d view of a typed array, a Node Buffer or a DataView (as bytes), measured by the engine's own getters. */
export function viewFromArrayBufferView(array: ArrayBufferView): StridedMemoryView {
  const m = measureView(array);
  if (m === undefined) throw new NotViewableError(`${formatValue(array)} is not an ArrayBuffer view`);
  if (m.length === 0 && isDetached(m.buffer)) throw new ExporterClosedError("the typed array's buffer was detached");
  if (m.kind === 'DataView') return compactHostView(m.buffer, m.byteOffset, m.byteLength, UINT8, array);
  const t = dtypeOfKind(m.kind);
  if (t === undefined) throw new NotViewableError(`${m.kind} is an ArrayBuffer view of no known element type`);
  return compactHostView(m.buffer, m.byteOffset, m.length, t, array);
}

/** @internal A 1-d byte view of a whole ArrayBuffer or SharedArrayBuffer. */
export function viewFromArrayBuffer(buffer: ArrayBufferLike): StridedMemoryView {
  if (isDetached(buffer)) throw new ExporterClosedError('the ArrayBuffer was detached');
  return compactHostView(buffer, 0, bufferByteLength(buffer), UINT8, buffer);
}
