import { CPU_DEVICE } from '../device.js';
import { dtype } from '../dtype.js';
import { ExporterClosedError, NotViewableError } from '../errors.js';
import { bufferByteLength, isDetached, measureView } from '../host-buffer.js';
import { ONE_STRIDE } from '../layout.js';
import { dtypeOfKind } from '../typed-arrays.js';
import { StridedMemoryView } from '../strided-memory-view.js';

const UINT8 = dtype('uint8');

/** @internal A 1-d view of a typed array, a Node Buffer or a DataView (as bytes), measured by the engine's own getters. */
export function viewFromArrayBufferView(array: ArrayBufferView): StridedMemoryView {
  const m = measureView(array);
  if (m === undefined) throw new NotViewableError(`${Object.prototype.toString.call(array)} is not an ArrayBuffer view`);
  if (m.length === 0 && isDetached(m.buffer)) throw new ExporterClosedError("the typed array's buffer was detached");
  if (m.kind === 'DataView') {
    return new StridedMemoryView(undefined, m.buffer, m.byteOffset, [m.byteLength], ONE_STRIDE, UINT8, CPU_DEVICE, 0, array, undefined, undefined, undefined);
  }
  const t = dtypeOfKind(m.kind);
  if (t === undefined) throw new NotViewableError(`${m.kind} is an ArrayBuffer view of no known element type`);
  return new StridedMemoryView(undefined, m.buffer, m.byteOffset, [m.length], ONE_STRIDE, t, CPU_DEVICE, 0, array, undefined, undefined, undefined);
}

/** @internal A 1-d byte view of a whole ArrayBuffer or SharedArrayBuffer. */
export function viewFromArrayBuffer(buffer: ArrayBufferLike): StridedMemoryView {
  if (isDetached(buffer)) throw new ExporterClosedError('the ArrayBuffer was detached');
  return new StridedMemoryView(undefined, buffer, 0, [bufferByteLength(buffer)], ONE_STRIDE, UINT8, CPU_DEVICE, 0, buffer, undefined, undefined, undefined);
}
