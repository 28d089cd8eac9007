import { CUDA_STREAM } from './protocol-keys.js';
import type { CudaStreamLike } from './protocols.js';

/**
 * A stream to order work on: an object that implements the stream protocol
 * (`Symbol.for('cuda.stream')`), or a `CUstream` handle as a `bigint` (`0n`
 * is the default stream). `@cuda-js/streams` and `@cuda-js/core` take this
 * wherever they take a stream.
 */
export type StreamArgument = CudaStreamLike | bigint;

/**
 * Why a value names no stream (see {@link readStreamHandle}): it is no stream
 * argument at all (`'not-a-stream'`), or its protocol method answered
 * something other than `{ version: 0, handle: bigint }` (`'bad-answer'`, with
 * that `answer`). Each caller words the error its API documents.
 */
export type StreamHandleFault =
  | { readonly fault: 'not-a-stream' }
  | { readonly fault: 'bad-answer'; readonly answer: unknown };

const NOT_A_STREAM: StreamHandleFault = Object.freeze({ fault: 'not-a-stream' });

/**
 * The raw `CUstream` handle that a {@link StreamArgument} names: a bigint as
 * is, else the `handle` of the object's `[Symbol.for('cuda.stream')]()`
 * answer (called once). A value that names no stream gives a
 * {@link StreamHandleFault} instead, so that each caller throws its own error.
 */
export function readStreamHandle(stream: unknown): bigint | StreamHandleFault {
  if (typeof stream === 'bigint') return stream;
  if (stream === null || typeof stream !== 'object' || !(CUDA_STREAM in stream)) return NOT_A_STREAM;
  const answer: unknown = (stream as CudaStreamLike)[CUDA_STREAM]();
  if (answer !== null && typeof answer === 'object') {
    const { version, handle } = answer as { version?: unknown; handle?: unknown };
    if (version === 0 && typeof handle === 'bigint') return handle;
  }
  return { fault: 'bad-answer', answer };
}
