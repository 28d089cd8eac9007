import {
  CUDA_ARRAY_INTERFACE,
  DLDeviceType,
  driverHooks,
  formatValue,
  isCudaAccessible,
  StridedMemoryView,
  type CudaArrayInterface,
  type CudaArrayInterfaceLayout,
  type CudaArrayInterfaceReader,
  type Device,
} from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { LaunchArgumentError } from '../errors.js';
import { peerCanAddress } from '../context/peer-access.js';

/** An object that implements the CUDA array interface. */
export type CudaArrayInterfaceObject = { [CUDA_ARRAY_INTERFACE](): CudaArrayInterface };

/** Whether `arg` implements the CUDA array interface (detected with `in`, as the protocols ask). */
export function hasCudaArrayInterface(arg: object): arg is CudaArrayInterfaceObject {
  return CUDA_ARRAY_INTERFACE in arg;
}

const ADDRESS_LIMIT = 1n << 64n;

/**
 * `ptr` if it is an address (a bigint in `[0, 2^64)`); otherwise a
 * {@link LaunchArgumentError}: a negative or overflowing address is refused,
 * never written modulo 2^64.
 */
export function checkedAddress(ptr: unknown, kernelName: string, index: number, name?: string): bigint {
  if (typeof ptr !== 'bigint' || ptr < 0n || ptr >= ADDRESS_LIMIT) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `the array's address ${formatValue(ptr)} is not an address in [0, 2^64)`,
      name,
    );
  }
  return ptr;
}

/** An extent (non-negative) or a stride of a view as a safe integer, for the i64 that a kernel reads. */
export function checkedExtent(
  value: unknown,
  kernelName: string,
  index: number,
  name: string | undefined,
  signed: boolean,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || (!signed && value < 0)) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `the array's ${signed ? 'stride' : 'extent'} ${formatValue(value)} is not ${signed ? 'an integer' : 'a non-negative integer'}`,
      name,
    );
  }
  return value;
}

/**
 * What the CUDA array interface object `arg` says now, read by `reader` (the
 * reader of its argument position, which compares the answer with the last
 * one instead of reading it again in full) and checked as memory-view checks
 * it; a bad answer is a {@link LaunchArgumentError} whose cause is
 * memory-view's named error.
 */
export function readInterface(
  arg: CudaArrayInterfaceObject,
  reader: CudaArrayInterfaceReader,
  kernelName: string,
  index: number,
  name?: string,
): CudaArrayInterfaceLayout {
  const method: unknown = arg[CUDA_ARRAY_INTERFACE];
  if (typeof method !== 'function')
    throw new LaunchArgumentError(kernelName, index, "Symbol.for('cuda.array_interface') is not a method", name);
  let answer: unknown;
  try {
    answer = method.call(arg);
  } catch (error) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `Symbol.for('cuda.array_interface')() threw: ${(error as Error)?.message ?? String(error)}`,
      name,
      { cause: error },
    );
  }
  try {
    return reader.read(answer);
  } catch (error) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `not a CUDA array that cuda-js can pass (${(error as Error).message})`,
      name,
      { cause: error },
    );
  }
}

/** Orders the launch stream after the producer's stream of a CUDA array interface answer, as the protocol asks. */
export function orderInterface(layout: CudaArrayInterfaceLayout, consumer: bigint, stream: bigint): void {
  const producer = layout.producerStream;
  if (producer !== undefined && producer !== consumer) orderStreams(producer, stream);
}

/**
 * Checks that the memory of a CUDA array interface answer is on the launch's
 * device (`deviceOrdinal`; -1: not known, nothing to check), asking the
 * driver which device owns the address, as memory-view does for a view of
 * one (the protocol names no device).
 */
export function checkInterfaceDevice(
  ptr: bigint,
  deviceOrdinal: number,
  kernelName: string,
  index: number,
  name?: string,
): void {
  if (deviceOrdinal < 0) return;
  const pointerDevice = driverHooks().pointerDevice;
  if (pointerDevice === undefined) return;
  let device: Device;
  try {
    device = pointerDevice(ptr);
  } catch (error) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `the driver does not know the array's address 0x${ptr.toString(16)} (${(error as Error).message})`,
      name,
      { cause: error },
    );
  }
  checkDeviceOrdinal(device, ptr, deviceOrdinal, kernelName, index, name);
}

function checkDeviceOrdinal(
  device: Device,
  ptr: bigint,
  deviceOrdinal: number,
  kernelName: string,
  index: number,
  name: string | undefined,
): void {
  // memory of another device is refused unless its pool grants this device access (DeviceMemoryResource.peerAccessibleBy)
  if (
    device.type === DLDeviceType.CUDA &&
    device.id !== deviceOrdinal &&
    !peerCanAddress(ptr, device.id, deviceOrdinal)
  ) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `the array lives on CUDA device ${device.id}, but the launch is on device ${deviceOrdinal}; copy it there, make device ${device.id} current, or grant device ${deviceOrdinal} peer access to its pool (DeviceMemoryResource.peerAccessibleBy)`,
      name,
    );
  }
}

/**
 * Orders the launch stream after the stream a view was made for, as
 * memory-view does when a view is viewed again for another stream: work on
 * `stream` (the CUstream, whose protocol value is `consumer`) waits for the
 * work already on the view's stream. Nothing when the view has no stream or
 * was made for the launch stream.
 */
export function orderView(view: StridedMemoryView, consumer: bigint, stream: bigint): void {
  const producer = view.stream;
  if (producer !== undefined && producer !== consumer) orderStreams(producer, stream);
}

/**
 * Checks that a view's memory is device memory that a kernel of the current
 * device can use: not host memory, and not another device's memory
 * (`deviceOrdinal` -1: the current device is not known, and only host memory
 * is refused). Pinned and managed memory serve every device.
 */
export function checkViewDevice(
  view: StridedMemoryView,
  deviceOrdinal: number,
  kernelName: string,
  index: number,
  name?: string,
): void {
  if (view.ptr === undefined || !view.isDeviceAccessible) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      'the array lives in host memory the GPU cannot address; copy it to a device Buffer first',
      name,
    );
  }
  if (deviceOrdinal < 0) return;
  const device = view.device;
  if (!isCudaAccessible(device.type)) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      'the array lives in host memory the GPU cannot address; copy it to a device Buffer first',
      name,
    );
  }
  checkDeviceOrdinal(device, view.ptr, deviceOrdinal, kernelName, index, name);
}

/**
 * The view of an array argument that is not a StridedMemoryView: anything
 * memory-view can view (DLPack, the CUDA array interface, ...), viewed with
 * the launch's stream as the consumer's stream (`consumer`, a protocol
 * stream value), so that the producer's work is ordered before the launch.
 */
export function implicitView(
  arg: object,
  consumer: bigint,
  kernelName: string,
  index: number,
  name?: string,
): StridedMemoryView {
  try {
    return StridedMemoryView.fromAny(arg, { stream: consumer });
  } catch (error) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `not an array that cuda-js can view (${(error as Error).message})`,
      name,
    );
  }
}
