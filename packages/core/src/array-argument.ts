import { CUDA_ARRAY_INTERFACE, isCudaAccessible, StridedMemoryView, type CudaArrayInterface } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { LaunchArgumentError } from './errors.js';

/** An object that implements the CUDA array interface. */
export type CudaArrayInterfaceObject = { [CUDA_ARRAY_INTERFACE](): CudaArrayInterface };

/** Whether `arg` implements the CUDA array interface (detected with `in`, as the protocols ask). */
export function hasCudaArrayInterface(arg: object): arg is CudaArrayInterfaceObject {
  return CUDA_ARRAY_INTERFACE in arg;
}

/**
 * The address in a CUDA array interface answer, read straight from the
 * protocol: a launch needs only the pointer and the producer's stream, so no
 * view is built. Ordering follows the protocol: the launch stream waits for
 * the producer's stream.
 */
export function interfaceAddress(cai: CudaArrayInterface, stream: bigint, kernelName: string, index: number): bigint {
  const data = cai?.data;
  if (!Array.isArray(data)) throw new LaunchArgumentError(kernelName, index, "Symbol.for('cuda.array_interface')() has no data: [address, readOnly]");
  if (cai.mask !== undefined && cai.mask !== null) throw new LaunchArgumentError(kernelName, index, 'masked CUDA arrays are not supported');
  const address = data[0];
  const ptr = typeof address === 'bigint' ? address : typeof address === 'number' && Number.isSafeInteger(address) && address >= 0 ? BigInt(address) : undefined;
  if (ptr === undefined) throw new LaunchArgumentError(kernelName, index, `the CUDA array interface address must be a bigint or a safe integer, got ${String(address)}`);
  const producer = cai.stream;
  if (producer !== undefined && producer !== null) {
    if (producer === 0 || producer === 0n) throw new LaunchArgumentError(kernelName, index, 'the CUDA array interface stream must not be 0 (use 1 for the legacy default stream)');
    orderStreams(BigInt(producer), stream === 0n ? 1n : stream);
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
 * The device address of an array argument that is not a CUDA array interface
 * object: a StridedMemoryView, or anything else memory-view can view (DLPack,
 * ...), viewed with the launch's stream as the consumer's stream.
 */
export function viewAddress(arg: object, stream: bigint, kernelName: string, index: number): bigint {
  let view: StridedMemoryView;
  if (arg instanceof StridedMemoryView) {
    view = arg;
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
