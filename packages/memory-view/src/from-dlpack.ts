import { DLPACK, DLPACK_DEVICE } from './protocol-keys.js';
import { DLPACK_VERSION, DLPackFlags, type DLPackRequest, type DLPackTensor } from './protocols.js';
import { checkedDevice, DLDeviceType } from './device.js';
import { isDType, dtypeOf, type DType } from './dtype.js';
import {
  DLPackVersionError,
  ExporterClosedError,
  OutOfBoundsError,
  ProtocolError,
  ReadOnlyViewError,
  StreamRequiredError,
} from './errors.js';
import { formatValue } from './format-value.js';
import { checkAddress, checkInBuffer, compactStrides, readShape, readStrides } from './layout.js';
import { bufferByteLength, isArrayBufferLike, isDetached } from './host-buffer.js';
import { Lease } from './lease.js';
import { NO_SYNC, resolveStream } from './stream.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { CHECKED_VIEW_INIT, storedItemsize } from './view-init.js';
import type { ViewOptions } from './view-options.js';

// Requests are frozen and shared where they carry no handle: no allocation per view.
const HOST_REQUEST: DLPackRequest = Object.freeze({ maxVersion: DLPACK_VERSION });
const NO_SYNC_REQUEST: DLPackRequest = Object.freeze({ stream: NO_SYNC, maxVersion: DLPACK_VERSION });

function callDeleter(tensor: DLPackTensor, deleter: unknown = tensor.deleter): void {
  if (typeof deleter === 'function') deleter.call(tensor);
}

/**
 * The request for a producer on `deviceType`, following DLPack: no stream for
 * host memory; for CUDA memory the consumer's stream, which must be given;
 * pinned and managed memory pass the stream through when there is one.
 */
function requestFor(deviceType: number, consumer: bigint | undefined): DLPackRequest {
  switch (deviceType) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: CUDA memory with a consumer stream is requested as pinned and managed memory are
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
  if (
    exporter === null ||
    typeof exporter !== 'object' ||
    typeof exporter[DLPACK] !== 'function' ||
    typeof exporter[DLPACK_DEVICE] !== 'function'
  ) {
    throw new ProtocolError(
      "fromDLPack: the object needs both Symbol.for('dlpack') and Symbol.for('dlpack.device') methods",
    );
  }
  const consumer = resolveStream(options?.stream);
  const answer: unknown = (exporter[DLPACK_DEVICE] as () => unknown)();
  // Each entry is read once: a Proxy or a getter cannot answer twice.
  const isObject = answer !== null && typeof answer === 'object';
  const deviceType: unknown = isObject ? (answer as unknown[])[0] : undefined;
  const deviceId: unknown = isObject ? (answer as unknown[])[1] : undefined;
  if (checkedDevice(deviceType, deviceId) === undefined) {
    throw new ProtocolError(
      `Symbol.for('dlpack.device') returned ${formatValue(answer)}; expected [deviceType, deviceId] of integers`,
    );
  }
  const type = deviceType as number;
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
  if (tensor === null || typeof tensor !== 'object')
    throw new ProtocolError(`Symbol.for('dlpack') returned ${formatValue(tensor)}; expected a DLPack tensor object`);
  // The deleter is read once; whatever fails below calls that one.
  let deleter: unknown;
  try {
    deleter = tensor.deleter;
  } catch (error) {
    throw new ProtocolError(`reading the DLPack tensor's deleter threw: ${formatValue((error as Error)?.message)}`);
  }
  let view: StridedMemoryView;
  try {
    const version: unknown = tensor.version;
    const major: unknown =
      version !== null && typeof version === 'object' ? (version as { major?: unknown }).major : undefined;
    if (major !== 1) {
      if (version === null || typeof version !== 'object')
        throw new ProtocolError('the DLPack tensor has no version { major, minor } (its deleter was called)');
      const minor: unknown = (version as { minor?: unknown }).minor;
      if (typeof major !== 'number' || typeof minor !== 'number')
        throw new ProtocolError(
          `the DLPack tensor's version is { major: ${formatValue(major)}, minor: ${formatValue(minor)} } (its deleter was called)`,
        );
      throw new DLPackVersionError(major, minor);
    }
    view = buildView(tensor, deleter, exporter, stream, releaseWhenCollected);
  } catch (error) {
    callDeleter(tensor, deleter);
    throw error;
  }
  if (writable && view.readonly) {
    view.close();
    throw new ReadOnlyViewError(
      'the DLPack producer exported read-only memory and the caller asked to write (its deleter was called)',
    );
  }
  return view;
}

function buildView(
  tensor: DLPackTensor,
  deleter: unknown,
  exporter: unknown,
  stream: bigint | undefined,
  releaseWhenCollected: boolean,
): StridedMemoryView {
  // Every field is read once and copied as a validated primitive: nothing of the
  // producer's objects is kept by reference, so nothing changes after the checks.
  const d: unknown = tensor.dtype;
  let t: DType;
  if (isDType(d)) t = d;
  else if (d !== null && typeof d === 'object') {
    const { code, bits, lanes } = d as { code?: unknown; bits?: unknown; lanes?: unknown };
    t = dtypeOf(code as number, bits as number, lanes as number);
  } else throw new ProtocolError('the DLPack tensor has no dtype { code, bits, lanes }');
  const shape = readShape(tensor.shape, 'DLPack tensor');
  const given: unknown = tensor.strides;
  // NULL strides: compact row-major, as producers before DLPack 1.2 may send.
  const strides =
    given === null || given === undefined ? compactStrides(shape) : readStrides(given, shape, 'DLPack tensor');
  const deviceObject: unknown = tensor.device;
  const type: unknown =
    deviceObject !== null && typeof deviceObject === 'object' ? (deviceObject as { type?: unknown }).type : undefined;
  const id: unknown =
    deviceObject !== null && typeof deviceObject === 'object' ? (deviceObject as { id?: unknown }).id : undefined;
  const device = checkedDevice(type, id);
  if (device === undefined)
    throw new ProtocolError(
      `the DLPack tensor's device is { type: ${formatValue(type)}, id: ${formatValue(id)} }; expected integers`,
    );
  const givenFlags: unknown = tensor.flags ?? 0;
  if (typeof givenFlags !== 'number' || !Number.isSafeInteger(givenFlags) || givenFlags < 0) {
    throw new ProtocolError(
      `the DLPack tensor's flags are ${formatValue(givenFlags)}; expected a non-negative integer`,
    );
  }
  // Only the bits that DLPack 1.3 defines are kept.
  const flags = givenFlags & (DLPackFlags.READ_ONLY | DLPackFlags.IS_COPIED | DLPackFlags.IS_SUBBYTE_TYPE_PADDED);
  const byteOffset: unknown = tensor.byteOffset ?? 0;
  if (typeof byteOffset !== 'number' || !Number.isSafeInteger(byteOffset) || byteOffset < 0) {
    throw new ProtocolError(
      `the DLPack tensor's byteOffset is ${formatValue(byteOffset)}; expected a non-negative integer`,
    );
  }
  if (deleter !== undefined && deleter !== null && typeof deleter !== 'function')
    throw new ProtocolError("the DLPack tensor's deleter is not a function");
  const data: unknown = tensor.data;
  const itemsize = storedItemsize(t, flags);
  let ptr: bigint | undefined;
  let buffer: ArrayBufferLike | undefined;
  let offset = 0;
  if (typeof data === 'bigint') {
    if (data < 0n || data >= 1n << 64n)
      throw new OutOfBoundsError(`the DLPack tensor's data address ${formatValue(data)} is outside [0, 2^64)`);
    ptr = byteOffset === 0 ? data : data + BigInt(byteOffset);
    checkAddress(ptr, shape, strides, itemsize, 'DLPack tensor');
  } else if (isArrayBufferLike(data)) {
    buffer = data;
    offset = byteOffset;
    if (isDetached(data)) throw new ExporterClosedError("the DLPack tensor's buffer is detached");
    checkInBuffer(offset, bufferByteLength(data), shape, strides, itemsize, 'DLPack tensor');
  } else {
    throw new ProtocolError(
      `the DLPack tensor's data is ${formatValue(data)}; expected a bigint address, an ArrayBuffer or a SharedArrayBuffer`,
    );
  }
  const lease = typeof deleter === 'function' ? new Lease(() => deleter.call(tensor), releaseWhenCollected) : undefined;
  return new StridedMemoryView(
    {
      ptr,
      buffer,
      byteOffset: offset,
      shape,
      strides,
      dtype: t,
      device,
      flags,
      exporter,
      stream,
      source: tensor,
      lease,
    },
    CHECKED_VIEW_INIT,
  );
}
