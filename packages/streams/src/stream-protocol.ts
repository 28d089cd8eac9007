// The stream protocol's key, its types and the reader of a stream argument
// live in @cuda-js/memory-view (which depends on nothing); this package gives
// them the names it has always exported, and brands the handle it reads.
import { driver, type CUstream } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { deferredStreams, submitDeferredWork } from './deferred-work.js';
import { UnknownStreamHandleError } from './errors.js';
import {
  CUDA_STREAM,
  readStreamHandle,
  type CudaStreamInfo,
  type CudaStreamLike,
  type StreamArgument,
} from '@cuda-js/memory-view';

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
 * The bigint handles taken as streams: the default streams, every stream a
 * {@link Stream} of this thread made (until it is destroyed), and every
 * foreign handle wrapped once with `Stream.from(handle)`, the one place a raw
 * handle is taken on trust (as cuda.core takes foreign streams only through
 * `__cuda_stream__`). Any other bigint would reach the driver unchecked.
 */
const knownHandles = new Map<bigint, number>([
  [0n, 1],
  [LEGACY_DEFAULT_STREAM_HANDLE, 1],
  [PER_THREAD_DEFAULT_STREAM_HANDLE, 1],
]);

/** @internal Stream's: `handle` names a stream from now on (counted: two wrappers of one handle). */
export function rememberStreamHandle(handle: bigint): void {
  knownHandles.set(handle, (knownHandles.get(handle) ?? 0) + 1);
}

/** @internal Stream's: a stream of `handle` was destroyed. */
export function forgetStreamHandle(handle: bigint): void {
  const n = knownHandles.get(handle) ?? 0;
  if (n <= 1) knownHandles.delete(handle);
  else knownHandles.set(handle, n - 1);
}

/**
 * Reads a stream argument's CUstream handle (memory-view's `readStreamHandle`, typed as a CUstream).
 * A bigint is taken only where it names a stream cuda-js knows (see `knownHandles`).
 *
 * @throws {TypeError} where `stream` is no stream argument, or its protocol method answers something other than `{ version: 0, handle: bigint }`
 * @throws {UnknownStreamHandleError} for a bigint that names no stream cuda-js made or wrapped
 */
export function streamHandle(stream: StreamArgument, what = 'stream'): CUstream {
  const handle = readStreamHandle(stream);
  if (typeof handle === 'bigint') {
    if (typeof stream === 'bigint' && !knownHandles.has(handle)) {
      throw new UnknownStreamHandleError(
        `${what}: 0x${handle.toString(16)} is no stream that cuda-js made or wrapped; pass a Stream, wrap a stream owned elsewhere once with Stream.from(handle), or pass an object implementing Symbol.for('cuda.stream')`,
      );
    }
    if (deferredStreams !== 0) submitDeferredWork(handle);
    return brandHandle<CUstream>(handle);
  }
  if (handle.fault === 'bad-answer') {
    throw new TypeError(
      `${what}: [Symbol.for('cuda.stream')]() must return { version: 0, handle: bigint }, got ${describe(handle.answer)}`,
    );
  }
  throw new TypeError(
    `${what} must be a Stream, an object implementing Symbol.for('cuda.stream'), or a bigint CUstream handle; got ${describe(stream)}`,
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return `${typeof value} ${String(value)}`;
}
