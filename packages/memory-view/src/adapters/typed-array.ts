import { CPU_DEVICE } from '../device.js';
import { dtype } from '../dtype.js';
import { ExporterClosedError, NotViewableError } from '../errors.js';
import { isDetached } from '../host-buffer.js';
import { ONE_STRIDE } from '../layout.js';
import { dtypeOfTypedArray } from '../typed-arrays.js';
import { StridedMemoryView } from '../strided-memory-view.js';

const UINT8 = dtype('uint8');

/** @internal A 1-d view of a typed array, a Node Buffer or a DataView (as bytes). */
export function viewFromArrayBufferView(array: ArrayBufferView): StridedMemoryView {
  const buffer = array.buffer;
  if (array instanceof DataView) {
    return new StridedMemoryView(undefined, buffer, array.byteOffset, [array.byteLength], ONE_STRIDE, UINT8, CPU_DEVICE, 0, array, undefined, undefined, undefined);
  }
  const t = dtypeOfTypedArray(array);
  if (t === undefined) throw new NotViewableError(`${Object.prototype.toString.call(array)} is an ArrayBuffer view of no known element type`);
  const length = (array as Uint8Array).length;
  // A detached buffer reads as length 0; refuse it rather than view nothing.
  if (length === 0 && isDetached(buffer)) throw new ExporterClosedError("the typed array's buffer was detached");
  return new StridedMemoryView(undefined, buffer, array.byteOffset, [length], ONE_STRIDE, t, CPU_DEVICE, 0, array, undefined, undefined, undefined);
}

/** @internal A 1-d byte view of a whole ArrayBuffer or SharedArrayBuffer. */
export function viewFromArrayBuffer(buffer: ArrayBufferLike): StridedMemoryView {
  if (isDetached(buffer)) throw new ExporterClosedError('the ArrayBuffer was detached');
  return new StridedMemoryView(undefined, buffer, 0, [buffer.byteLength], ONE_STRIDE, UINT8, CPU_DEVICE, 0, buffer, undefined, undefined, undefined);
}
