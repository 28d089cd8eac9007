import { CUDA_ARRAY_INTERFACE, isCudaAccessible, StridedMemoryView, type CudaArrayInterface } from '@cuda-js/memory-view';
import { orderAfter } from './driver-hooks.js';
import { LaunchArgumentError } from './errors.js';

/**
 * The address of a CUDA array interface object, read straight from the
 * protocol: a launch needs only the pointer and the producer's stream, so no
 * view is built. Ordering follows the protocol: the launch stream waits for
 * the producer's stream.
 */
function caiAddress(arg: { [CUDA_ARRAY_INTERFACE](): CudaArrayInterface }, stream: bigint, kernelName: string, index: number, known: WeakMap<object, bigint>): bigint {
  const cai = arg[CUDA_ARRAY_INTERFACE]();
  // A frozen answer seen before (docs/protocols.md asks producers for one) was checked then, and holds no stream to wait for.
  const seen = typeof cai === 'object' && cai !== null ? known.get(cai) : undefined;
  if (seen !== undefined) return seen;
  const data = cai?.data;
  if (!Array.isArray(data)) throw new LaunchArgumentError(kernelName, index, "Symbol.for('cuda.array_interface')() has no data: [address, readOnly]");
  if (cai.mask !== undefined && cai.mask !== null) throw new LaunchArgumentError(kernelName, index, 'masked CUDA arrays are not supported');
  const address = data[0];
  const ptr = typeof address === 'bigint' ? address : typeof address === 'number' && Number.isSafeInteger(address) && address >= 0 ? BigInt(address) : undefined;
  if (ptr === undefined) throw new LaunchArgumentError(kernelName, index, `the CUDA array interface address must be a bigint or a safe integer, got ${String(address)}`);
  const producer = cai.stream;
  if (producer !== undefined && producer !== null) {
    if (producer === 0 || producer === 0n) throw new LaunchArgumentError(kernelName, index, 'the CUDA array interface stream must not be 0 (use 1 for the legacy default stream)');
    orderAfter(BigInt(producer), stream === 0n ? 1n : stream);
  } else if (Object.isFrozen(cai) && Object.isFrozen(data)) {
    known.set(cai, ptr);
  }
  return ptr;
}

/**
 * The device address of an array argument: a StridedMemoryView, a CUDA array
 * interface object (read directly), or anything else that memory-view can view
 * (DLPack, ...), viewed with the launch's stream as the consumer's stream.
 */
export function deviceAddressOf(arg: object, stream: bigint, kernelName: string, index: number, knownInterfaces: WeakMap<object, bigint> = new WeakMap()): bigint {
  let view: StridedMemoryView;
  if (arg instanceof StridedMemoryView) {
    view = arg;
  } else if (CUDA_ARRAY_INTERFACE in arg) {
    return caiAddress(arg as { [CUDA_ARRAY_INTERFACE](): CudaArrayInterface }, stream, kernelName, index, knownInterfaces);
  } else {
    try {
      view = StridedMemoryView.fromAny(arg, { stream: stream === 0n ? 1n : stream });
    } catch (error) {
      throw new LaunchArgumentError(kernelName, index, `not an array that cuda-js can view (${(error as Error).message})`);
    }
  }
  if (!isCudaAccessible(view.device.type)) {
    throw new LaunchArgumentError(kernelName, index, 'the array lives in host memory the GPU cannot address; copy it to a device Buffer first');
  }
  return view.ptr as bigint;
}
