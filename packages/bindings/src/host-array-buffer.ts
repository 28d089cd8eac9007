import type { CUdeviceptr } from './generated/handles.js';
import { addonFunction } from './native.js';

/**
 * A zero-copy `ArrayBuffer` over the `byteLength` bytes at `ptr`, for memory
 * that the host reads at the address the device does: pinned memory
 * (`cuMemHostAlloc`, `cuMemAllocHost`, `cuMemHostRegister`) and managed memory
 * (`cuMemAllocManaged`). The driver is asked, on each call, whether the whole
 * range is host-accessible and lies in one allocation (nothing the caller
 * says is trusted); where it is not, {@link HostViewError} says why. Bad
 * argument types are a `TypeError`, sizes beyond 2^64 or above 4 GiB (the
 * ArrayBuffer limit of Node.js 20) a `RangeError`. Without a CUDA context the
 * driver's own `CudaError` comes through.
 *
 * The ArrayBuffer keeps `owner` alive until it is collected: pass the object
 * whose lifetime is the allocation's (a Buffer of `@cuda-js/core`), so that
 * the memory is not freed while a view of it exists. Nothing else stops a
 * `cuMemFreeHost` or `cuMemFree` of the same memory; after one, the view
 * reads freed memory. On a device without `concurrentManagedAccess`, touching
 * managed memory while a kernel runs faults, as it does in C.
 *
 * A zero `byteLength` gives an empty ArrayBuffer (the address is still checked).
 */
export function hostArrayBuffer(ptr: CUdeviceptr | bigint, byteLength: number | bigint, owner: object): ArrayBuffer {
  return addonFunction<(ptr: bigint, byteLength: number | bigint, owner: object) => ArrayBuffer>('hostArrayBuffer')(
    ptr,
    byteLength,
    owner,
  );
}
