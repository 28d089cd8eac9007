import {
  DLPACK_VERSION,
  DLPackFlags,
  type CudaArrayInterface,
  type DLPackRequest,
  type DLPackTensor,
} from './protocols.js';
import { CPU_DEVICE, DLDeviceType, deviceTypeName, isCudaAccessible } from './device.js';
import { UnknownDTypeError, UnsupportedDeviceError, UnsupportedExportError } from './errors.js';
import { compactStrides } from './layout.js';
import { NO_SYNC, orderStreams } from './stream.js';
import type { StridedMemoryView } from './strided-memory-view.js';

/** A compact host copy of the view as a tensor that owns its copy (no deleter: the copy is garbage-collected). */
function copiedTensor(view: StridedMemoryView): DLPackTensor {
  const copy = view.toTypedArray();
  return {
    version: DLPACK_VERSION,
    flags: DLPackFlags.IS_COPIED | (view.flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED),
    device: CPU_DEVICE,
    data: copy.buffer,
    byteOffset: 0,
    dtype: view.dtype,
    shape: view.shape,
    strides: compactStrides(view.shape),
    managerContext: copy,
  };
}

/**
 * @internal `StridedMemoryView[DLPACK]`: the view as a DLPack 1.3 tensor
 * whose deleter gives the export back to the view's family. A copy only for
 * host memory (`copy: true`, or `dlDevice` CPU).
 */
export function exportDLPack(view: StridedMemoryView, request: DLPackRequest | undefined): DLPackTensor {
  view._checkOpen('export through DLPack');
  const device = view.device;
  if (request !== undefined) {
    if (request.maxVersion !== undefined && request.maxVersion.major < 1) {
      throw new UnsupportedExportError(
        `the consumer reads DLPack ${request.maxVersion.major}.${request.maxVersion.minor}; this view exports DLPack 1.x only`,
      );
    }
    const want = request.dlDevice;
    const elsewhere = want !== undefined && (want[0] !== device.type || want[1] !== device.id);
    if (request.copy === true || elsewhere) {
      if (request.copy === false)
        throw new UnsupportedExportError(
          `the consumer wants the data on device [${want!.join(', ')}] without a copy; it is on [${device.type}, ${device.id}]`,
        );
      if (elsewhere && (want![0] !== DLDeviceType.CPU || !view.isHostReadable)) {
        throw new UnsupportedExportError(
          `cannot copy from ${deviceTypeName(device.type)}:${device.id} to device [${want!.join(', ')}]: memory-view copies host memory only`,
        );
      }
      return copiedTensor(view);
    }
    if (request.stream !== undefined && isCudaAccessible(device.type)) {
      orderStreams(view.stream, request.stream, 'this view');
    }
  }
  const lease = view._family();
  lease.retain();
  let given = false;
  return {
    version: DLPACK_VERSION,
    flags: view.flags & ~DLPackFlags.IS_COPIED,
    device,
    data: view.buffer ?? view.ptr ?? 0n,
    byteOffset: view.buffer === undefined ? 0 : view.byteOffset,
    dtype: view.dtype,
    shape: view.shape,
    strides: view.strides,
    deleter: () => {
      if (given) return;
      given = true;
      lease.unretain();
    },
    managerContext: view,
  };
}

/**
 * @internal `StridedMemoryView[CUDA_ARRAY_INTERFACE]` (the view caches it):
 * the CUDA array interface v3 of device-accessible memory, frozen.
 */
export function cudaArrayInterfaceOf(view: StridedMemoryView): CudaArrayInterface {
  const device = view.device;
  const ptr = view.ptr;
  if (ptr === undefined || !isCudaAccessible(device.type)) {
    throw new UnsupportedDeviceError(
      `the CUDA array interface describes CUDA-accessible memory; this view is on ${deviceTypeName(device.type)}:${device.id}`,
    );
  }
  const typestr = view.dtype.typestr;
  if (typestr === undefined)
    throw new UnknownDTypeError(
      `${view.dtype.name} has no CUDA-array-interface typestr (packed sub-byte type); use DLPack`,
    );
  const itemsize = view.itemsize;
  return Object.freeze({
    shape: Object.freeze([...view.shape]),
    typestr,
    data: Object.freeze([ptr, view.readonly] as const),
    strides: view.isCContiguous ? null : Object.freeze(view.strides.map((s) => s * itemsize)),
    version: 3,
    stream: view.stream === undefined || view.stream === NO_SYNC ? undefined : view.stream,
  });
}
