import { isCudaAccessible, StridedMemoryView } from '@cuda-js/memory-view';
import { LaunchArgumentError } from './errors.js';

/**
 * The device address of an array argument: a StridedMemoryView, or any object
 * that implements the DLPack or CUDA array interface protocols (viewed with
 * the launch's stream as the consumer stream).
 */
export function deviceAddressOf(arg: object, stream: bigint, kernelName: string, index: number): bigint {
  let view: StridedMemoryView;
  if (arg instanceof StridedMemoryView) {
    view = arg;
  } else {
    try {
      view = StridedMemoryView.fromAny(arg, { stream });
    } catch (error) {
      throw new LaunchArgumentError(kernelName, index, `not an array that cuda-js can view (${(error as Error).message})`);
    }
  }
  if (!isCudaAccessible(view.device.type)) {
    throw new LaunchArgumentError(kernelName, index, 'the array lives in host memory the GPU cannot address; copy it to a device Buffer first');
  }
  return view.ptr as bigint;
}
