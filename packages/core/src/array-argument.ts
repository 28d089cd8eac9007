import { CUDA_ARRAY_INTERFACE, DLDeviceType, isCudaAccessible, StridedMemoryView, type CudaArrayInterface, formatValue } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { LaunchArgumentError } from './errors.js';

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
    throw new LaunchArgumentError(kernelName, index, `the array's address ${formatValue(ptr)} is not an address in [0, 2^64)`, name);
  }
  return ptr;
}

/** An extent (non-negative) or a stride of a view as a safe integer, for the i64 that a kernel reads. */
export function checkedExtent(value: unknown, kernelName: string, index: number, name: string | undefined, signed: boolean): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || (!signed && value < 0)) {
    throw new LaunchArgumentError(kernelName, index, `the array's ${signed ? 'stride' : 'extent'} ${formatValue(value)} is not ${signed ? 'an integer' : 'a non-negative integer'}`, name);
  }
  return value;
}

/**
 * The address in a CUDA array interface answer, read straight from the
 * protocol: a launch needs only the pointer and the producer's stream, so no
 * view is built. Ordering follows the protocol: the launch stream waits for
 * the producer's stream.
 */
export function interfaceAddress(cai: CudaArrayInterface, stream: bigint, kernelName: string, index: number): bigint {
  const data: unknown = cai === null || typeof cai !== 'object' ? undefined : cai.data;
  if (!Array.isArray(data)) throw new LaunchArgumentError(kernelName, index, "Symbol.for('cuda.array_interface')() has no data: [address, readOnly]");
  const mask: unknown = cai.mask;
  if (mask !== undefined && mask !== null) throw new LaunchArgumentError(kernelName, index, 'masked CUDA arrays are not supported');
  const address: unknown = data[0];
  const ptr = typeof address === 'bigint' ? address : typeof address === 'number' && Number.isSafeInteger(address) && address >= 0 ? BigInt(address) : undefined;
  if (ptr === undefined) throw new LaunchArgumentError(kernelName, index, `the CUDA array interface address must be a bigint or a safe integer, got ${formatValue(address)}`);
  checkedAddress(ptr, kernelName, index);
  const producer: unknown = cai.stream;
  if (producer !== undefined && producer !== null) {
    if (producer === 0 || producer === 0n) throw new LaunchArgumentError(kernelName, index, 'the CUDA array interface stream must not be 0 (use 1 for the legacy default stream)');
    const handle = typeof producer === 'bigint' ? producer : typeof producer === 'number' && Number.isSafeInteger(producer) && producer > 0 ? BigInt(producer) : undefined;
    if (handle === undefined || handle < 0n || handle >= ADDRESS_LIMIT) {
      throw new LaunchArgumentError(kernelName, index, `the CUDA array interface stream must be a positive integer handle, got ${formatValue(producer)}`);
    }
    orderStreams(handle, stream === 0n ? 1n : stream);
  }
  return ptr;
}

/**
 * An answer that can be trusted the next time it is returned: frozen (data
 * too), with no stream to wait for. docs/protocols.md asks producers for one.
 */
export function isReusableAnswer(cai: CudaArrayInterface): boolean {
  return Object.isFrozen(cai) && Object.isFrozen(cai.data) && (cai.stream === undefined || cai.stream === null);
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
export function checkViewDevice(view: StridedMemoryView, deviceOrdinal: number, kernelName: string, index: number, name?: string): void {
  if (view.ptr === undefined || !view.isDeviceAccessible) {
    throw new LaunchArgumentError(kernelName, index, 'the array lives in host memory the GPU cannot address; copy it to a device Buffer first', name);
  }
  if (deviceOrdinal < 0) return;
  const device = view.device;
  if (!isCudaAccessible(device.type)) {
    throw new LaunchArgumentError(kernelName, index, 'the array lives in host memory the GPU cannot address; copy it to a device Buffer first', name);
  }
  if (device.type === DLDeviceType.CUDA && device.id !== deviceOrdinal) {
    throw new LaunchArgumentError(
      kernelName,
      index,
      `the array lives on CUDA device ${device.id}, but the launch is on device ${deviceOrdinal}; copy it there, or make device ${device.id} current`,
      name,
    );
  }
}

/**
 * The view of an array argument that is not a StridedMemoryView: anything
 * memory-view can view (DLPack, the CUDA array interface, ...), viewed with
 * the launch's stream as the consumer's stream (`consumer`, a protocol
 * stream value), so that the producer's work is ordered before the launch.
 */
export function implicitView(arg: object, consumer: bigint, kernelName: string, index: number, name?: string): StridedMemoryView {
  try {
    return StridedMemoryView.fromAny(arg, { stream: consumer });
  } catch (error) {
    throw new LaunchArgumentError(kernelName, index, `not an array that cuda-js can view (${(error as Error).message})`, name);
  }
}

/**
 * The device address of an array argument that is not a CUDA array interface
 * object: a StridedMemoryView (ordered on the launch stream), or anything
 * else memory-view can view (DLPack, ...), viewed with the launch's stream as
 * the consumer's stream.
 */
export function viewAddress(arg: object, stream: bigint, consumer: bigint, deviceOrdinal: number, kernelName: string, index: number): bigint {
  if (arg instanceof StridedMemoryView) {
    if (arg.closed) throw new LaunchArgumentError(kernelName, index, 'the view is closed');
    checkViewDevice(arg, deviceOrdinal, kernelName, index);
    orderView(arg, consumer, stream);
    return checkedAddress(arg.ptr, kernelName, index);
  }
  const view = implicitView(arg, consumer, kernelName, index);
  checkViewDevice(view, deviceOrdinal, kernelName, index);
  return checkedAddress(view.ptr, kernelName, index);
}
