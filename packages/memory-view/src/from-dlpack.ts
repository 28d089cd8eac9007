import { DLPACK, DLPACK_DEVICE } from './protocol-keys.js';
import { DLPACK_VERSION, DLPackFlags, type DLPackRequest, type DLPackTensor } from './protocols.js';
import { DLDeviceType } from './device.js';
import { DType, dtypeOf } from './dtype.js';
import { DLPackVersionError, ExporterClosedError, ProtocolError, ReadOnlyViewError, StreamRequiredError } from './errors.js';
import { checkInBuffer, checkShape, checkStrides, compactStrides } from './layout.js';
import { isArrayBufferLike, isDetached } from './host-buffer.js';
import { Lease } from './lease.js';
import { NO_SYNC, resolveStream } from './stream.js';
import { StridedMemoryView, type ViewOptions } from './strided-memory-view.js';

// Requests are frozen and shared where they carry no handle: no allocation per view.
const HOST_REQUEST: DLPackRequest = Object.freeze({ maxVersion: DLPACK_VERSION });
const NO_SYNC_REQUEST: DLPackRequest = Object.freeze({ stream: NO_SYNC, maxVersion: DLPACK_VERSION });

function callDeleter(tensor: DLPackTensor): void {
  const deleter = tensor.deleter;
  if (typeof deleter === 'function') deleter.call(tensor);
}

/**
 * The request for a producer on `deviceType`, following DLPack: no stream for
 * host memory; for CUDA memory the consumer's stream, which must be given;
 * pinned and managed memory pass the stream through when there is one.
 */
function requestFor(deviceType: number, consumer: bigint | undefined): DLPackRequest {
  switch (deviceType) {
    case DLDeviceType.CUDA:
      if (consumer === undefined) {
        throw new StreamRequiredError(
          'a DLPack producer of CUDA memory needs the consumer stream: pass { stream } (a stream object or a CUstream handle), or { stream: -1 } for no synchronization',
        );
      }
    // falls through
    case DLDeviceType.CUDAHost:
    case DLDeviceType.CUDAManaged:
      if (consumer === undefined) return HOST_REQUEST;
      return consumer === NO_SYNC ? NO_SYNC_REQUEST : { stream: consumer, maxVersion: DLPACK_VERSION };
    default:
      // CPU, and devices whose streams are not CUDA streams: DLPack allows no stream value there.
      return HOST_REQUEST;
  }
}

/** @internal `StridedMemoryView.fromDLPack`. */
export function viewFromDLPack(obj: unknown, options: ViewOptions | undefined): StridedMemoryView {
  const exporter = obj as { [DLPACK]?: unknown; [DLPACK_DEVICE]?: unknown };
  if (exporter === null || typeof exporter !== 'object' || typeof exporter[DLPACK] !== 'function' || typeof exporter[DLPACK_DEVICE] !== 'function') {
    throw new ProtocolError("fromDLPack: the object needs both Symbol.for('dlpack') and Symbol.for('dlpack.device') methods");
  }
  const consumer = resolveStream(options?.stream);
  const device = (exporter[DLPACK_DEVICE] as () => readonly [number, number])();
  if (device === null || typeof device !== 'object' || typeof device[0] !== 'number' || typeof device[1] !== 'number') {
    throw new ProtocolError(`Symbol.for('dlpack.device') returned ${String(device)}; expected [deviceType, deviceId]`);
  }
  const type = device[0];
  const tensor = (exporter[DLPACK] as (r: DLPackRequest) => DLPackTensor)(requestFor(type, consumer));
  // The data is ordered on the consumer's stream when the producer was given one.
  const stream = consumer === NO_SYNC || type === DLDeviceType.CPU ? undefined : consumer;
  return viewFromTensor(tensor, obj, stream, options?.writable === true);
}

/**
 * @internal A view of a DLPack tensor, which it now owns: whatever fails after
 * the tensor was received calls its deleter before throwing.
 */
export function viewFromTensor(
  tensor: DLPackTensor,
  exporter: unknown,
  stream: bigint | undefined,
  writable: boolean,
  releaseWhenCollected = true,
): StridedMemoryView {
  if (tensor === null || typeof tensor !== 'object') throw new ProtocolError(`Symbol.for('dlpack') returned ${String(tensor)}; expected a DLPack tensor object`);
  const version = tensor.version;
  if (version === null || typeof version !== 'object' || version.major !== 1) {
    callDeleter(tensor);
    if (version === null || typeof version !== 'object') throw new ProtocolError('the DLPack tensor has no version { major, minor } (its deleter was called)');
    throw new DLPackVersionError(version.major, version.minor);
  }
  let view: StridedMemoryView;
  try {
    view = buildView(tensor, exporter, stream, releaseWhenCollected);
  } catch (error) {
    callDeleter(tensor);
    throw error;
  }
  if (writable && view.readonly) {
    view.close();
    throw new ReadOnlyViewError('the DLPack producer exported read-only memory and the caller asked to write (its deleter was called)');
  }
  return view;
}

function buildView(tensor: DLPackTensor, exporter: unknown, stream: bigint | undefined, releaseWhenCollected: boolean): StridedMemoryView {
  const d = tensor.dtype;
  const t = d instanceof DType ? d : d !== null && typeof d === 'object' ? dtypeOf(d.code, d.bits, d.lanes) : undefined;
  if (t === undefined) throw new ProtocolError('the DLPack tensor has no dtype { code, bits, lanes }');
  const shape = tensor.shape;
  checkShape(shape, 'DLPack tensor');
  const given = tensor.strides;
  let strides: readonly number[];
  if (given === null || given === undefined) {
    // NULL strides: compact row-major, as producers before DLPack 1.2 may send.
    strides = compactStrides(shape);
  } else {
    checkStrides(given, shape, 'DLPack tensor');
    strides = given;
  }
  const device = tensor.device;
  if (device === null || typeof device !== 'object' || typeof device.type !== 'number' || typeof device.id !== 'number') {
    throw new ProtocolError('the DLPack tensor has no device { type, id }');
  }
  const flags = tensor.flags ?? 0;
  if (typeof flags !== 'number') throw new ProtocolError(`the DLPack tensor's flags are ${typeof flags}; expected a number`);
  const byteOffset = tensor.byteOffset ?? 0;
  if (typeof byteOffset !== 'number' || !Number.isSafeInteger(byteOffset) || byteOffset < 0) {
    throw new ProtocolError(`the DLPack tensor's byteOffset is ${String(byteOffset)}; expected a non-negative integer`);
  }
  const deleter = tensor.deleter;
  if (deleter !== undefined && deleter !== null && typeof deleter !== 'function') throw new ProtocolError("the DLPack tensor's deleter is not a function");
  const data = tensor.data;
  let ptr: bigint | undefined;
  let buffer: ArrayBufferLike | undefined;
  let offset = 0;
  if (typeof data === 'bigint') {
    ptr = byteOffset === 0 ? data : data + BigInt(byteOffset);
  } else if (isArrayBufferLike(data)) {
    buffer = data;
    offset = byteOffset;
    const itemsize = flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED ? Math.ceil(t.itemsize) : t.itemsize;
    if (data.byteLength === 0 && isDetached(data)) throw new ExporterClosedError("the DLPack tensor's buffer is detached");
    checkInBuffer(offset, data.byteLength, shape, strides, itemsize, 'DLPack tensor');
  } else {
    throw new ProtocolError(`the DLPack tensor's data is ${Object.prototype.toString.call(data)}; expected a bigint address, an ArrayBuffer or a SharedArrayBuffer`);
  }
  const lease = typeof deleter === 'function' ? new Lease(() => deleter.call(tensor), releaseWhenCollected) : undefined;
  return new StridedMemoryView(ptr, buffer, offset, shape, strides, t, device, flags, exporter, stream, tensor, lease);
}
