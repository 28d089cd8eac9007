import { driver, type DriverTypes } from '@cuda-js/bindings';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { driverVersion } from '../context/driver-init.js';
import { MemoryArgumentError } from '../errors.js';
import { ManagedBuffer, managedRangeBytes } from './managed-buffer.js';
import { memLocationOf, type ManagedLocation } from './managed-location.js';

/**
 * Operations on several managed buffers in one driver call (cuda.core's
 * `prefetch_batch`, `discard_batch`, `discard_prefetch_batch`): the
 * `cuMem*BatchAsync` functions of CUDA 13. On an older driver a batched
 * prefetch is one `cuMemPrefetchAsync` per buffer; discarding needs CUDA 13
 * (the driver's `CudaError` CUDA_ERROR_NOT_FOUND says so).
 */

function buffersOf(buffers: unknown, what: string): ManagedBuffer[] {
  if (buffers instanceof ManagedBuffer)
    throw new MemoryArgumentError(`${what}: pass an array of ManagedBuffers; for one buffer use its own method`);
  if (!Array.isArray(buffers)) throw new MemoryArgumentError(`${what}: buffers must be an array of ManagedBuffers`);
  if (buffers.length === 0) throw new MemoryArgumentError(`${what}: no buffers`);
  return buffers.map((b, i) => {
    if (!(b instanceof ManagedBuffer))
      throw new MemoryArgumentError(
        `${what}: buffers[${i}] is not a ManagedBuffer (managed memory: ManagedMemoryResource, device.allocateManaged)`,
      );
    return b;
  });
}

/** One location for every buffer, or one per buffer. */
function locationsOf(
  locations: ManagedLocation | readonly ManagedLocation[],
  count: number,
  what: string,
): DriverTypes.CUmemLocation_v1[] {
  if (Array.isArray(locations)) {
    if (locations.length !== count)
      throw new MemoryArgumentError(`${what}: ${locations.length} locations for ${count} buffers`);
    return locations.map((l: ManagedLocation) => memLocationOf(l, 'prefetch', what));
  }
  const one = memLocationOf(locations, 'prefetch', what);
  return Array.from({ length: count }, () => one);
}

/**
 * Migrates each buffer to its location (one location for all, or one per
 * buffer), ordered on `stream`: `cuMemPrefetchBatchAsync` (CUDA 13), or one
 * `cuMemPrefetchAsync` per buffer on an older driver.
 */
export function prefetchBatch(
  stream: StreamArgument,
  buffers: readonly ManagedBuffer[],
  locations: ManagedLocation | readonly ManagedLocation[],
): void {
  const list = buffersOf(buffers, 'prefetchBatch');
  const where = locationsOf(locations, list.length, 'prefetchBatch');
  const handle = streamHandle(stream, 'prefetchBatch');
  const ptrs = list.map((b) => b.ptr);
  const sizes = list.map(managedRangeBytes);
  if (driverVersion().major < 13) {
    for (let i = 0; i < list.length; i++) driver.cuMemPrefetchAsync(ptrs[i]!, sizes[i]!, where[i]!, 0, handle);
    return;
  }
  driver.cuMemPrefetchBatchAsync(
    ptrs,
    sizes,
    where,
    list.map((_, i) => i),
    0,
    handle,
  );
}

/** Lets the driver drop the buffers' contents, ordered on `stream` (`cuMemDiscardBatchAsync`, CUDA 13): see {@link ManagedBuffer.discard}. */
export function discardBatch(stream: StreamArgument, buffers: readonly ManagedBuffer[]): void {
  const list = buffersOf(buffers, 'discardBatch');
  const handle = streamHandle(stream, 'discardBatch');
  driver.cuMemDiscardBatchAsync(
    list.map((b) => b.ptr),
    list.map(managedRangeBytes),
    0,
    handle,
  );
}

/** Discards the buffers' contents and makes their pages resident at the locations, ordered on `stream` (`cuMemDiscardAndPrefetchBatchAsync`, CUDA 13). */
export function discardPrefetchBatch(
  stream: StreamArgument,
  buffers: readonly ManagedBuffer[],
  locations: ManagedLocation | readonly ManagedLocation[],
): void {
  const list = buffersOf(buffers, 'discardPrefetchBatch');
  const where = locationsOf(locations, list.length, 'discardPrefetchBatch');
  const handle = streamHandle(stream, 'discardPrefetchBatch');
  driver.cuMemDiscardAndPrefetchBatchAsync(
    list.map((b) => b.ptr),
    list.map(managedRangeBytes),
    where,
    list.map((_, i) => i),
    0,
    handle,
  );
}
