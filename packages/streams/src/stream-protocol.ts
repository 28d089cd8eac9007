// The stream protocol's key, its types and the reader of a stream argument
// live in @cuda-js/memory-view (which depends on nothing); this package gives
// them the names it has always exported, and brands the handle it reads.
import { brandHandle, driver, type CUstream } from '@cuda-js/bindings';
import { CUDA_STREAM, readStreamHandle, type CudaStreamInfo, type CudaStreamLike, type StreamArgument } from '@cuda-js/memory-view';

export type { StreamArgument };

/**
 * The stream protocol (`__cuda_stream__` in Python): any object that owns a
 * CUstream exposes it under this registry key, so that cuda-js accepts it
 * without the object importing cuda-js. The same value as memory-view's `CUDA_STREAM`.
 */
export const STREAM_PROTOCOL: typeof CUDA_STREAM = CUDA_STREAM;

/** What `[STREAM_PROTOCOL]()` returns: memory-view's `CudaStreamInfo`. */
export type StreamProtocolResult = CudaStreamInfo;

/** An object that implements the stream protocol: memory-view's `CudaStreamLike`. */
export type StreamLike = CudaStreamLike;

/** The handle of the legacy default stream (CU_STREAM_LEGACY). */
export const LEGACY_DEFAULT_STREAM_HANDLE: CUstream = driver.constants.CU_STREAM_LEGACY;
/** The handle of the per-thread default stream (CU_STREAM_PER_THREAD). */
export const PER_THREAD_DEFAULT_STREAM_HANDLE: CUstream = driver.constants.CU_STREAM_PER_THREAD;

/**
 * Reads a stream argument's CUstream handle (memory-view's `readStreamHandle`, typed as a CUstream).
 *
 * @throws {TypeError} where `stream` is no stream argument, or its protocol method answers something other than `{ version: 0, handle: bigint }`
 */
export function streamHandle(stream: StreamArgument, what = 'stream'): CUstream {
  const handle = readStreamHandle(stream);
  if (typeof handle === 'bigint') return brandHandle<CUstream>(handle);
  if (handle.fault === 'bad-answer') {
    throw new TypeError(`${what}: [Symbol.for('cuda.stream')]() must return { version: 0, handle: bigint }, got ${describe(handle.answer)}`);
  }
  throw new TypeError(`${what} must be a Stream, an object implementing Symbol.for('cuda.stream'), or a bigint CUstream handle; got ${describe(stream)}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return `${typeof value} ${String(value)}`;
}
