/**
 * The stream protocol (`__cuda_stream__` in Python): any object that owns a
 * CUstream exposes it under this registry key, so that cuda-js accepts it
 * without the object importing cuda-js.
 */
export const STREAM_PROTOCOL: unique symbol = Symbol.for('cuda.stream') as never;

/** What `[STREAM_PROTOCOL]()` returns. */
export interface StreamProtocolResult {
  readonly version: 0;
  /** The CUstream handle; 0n is the legacy default stream. */
  readonly handle: bigint;
}

/** An object that implements the stream protocol. */
export interface StreamLike {
  [STREAM_PROTOCOL](): StreamProtocolResult;
}

/** The handle of the legacy default stream (CU_STREAM_LEGACY). */
export const LEGACY_DEFAULT_STREAM_HANDLE = 0x1n;
/** The handle of the per-thread default stream (CU_STREAM_PER_THREAD). */
export const PER_THREAD_DEFAULT_STREAM_HANDLE = 0x2n;

/** A stream argument: a protocol object, or a raw CUstream handle. */
export type StreamArgument = StreamLike | bigint;

/** Reads a stream argument's CUstream handle. */
export function streamHandle(stream: StreamArgument, what = 'stream'): bigint {
  if (typeof stream === 'bigint') return stream;
  if (stream !== null && typeof stream === 'object' && STREAM_PROTOCOL in stream) {
    const result = (stream as StreamLike)[STREAM_PROTOCOL]();
    if (result?.version !== 0 || typeof result.handle !== 'bigint') {
      throw new TypeError(`${what}: [Symbol.for('cuda.stream')]() must return { version: 0, handle: bigint }, got ${describe(result)}`);
    }
    return result.handle;
  }
  throw new TypeError(`${what} must be a Stream, an object implementing Symbol.for('cuda.stream'), or a bigint CUstream handle; got ${describe(stream)}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return `${typeof value} ${String(value)}`;
}
