/**
 * The root of every error that @cuda-js/streams defines (`IpcError`,
 * `HostFunctionError`, `HostFunctionDeadlockError`): one `instanceof` check
 * for them all. Use after `close()` is the bindings' shared
 * `ClosedResourceError`, failed driver calls the bindings' `CudaError`.
 */
export class StreamsError extends Error {
  override readonly name: string = 'StreamsError';
}

/**
 * A bigint stream handle that cuda-js did not make or wrap: the driver cannot
 * check a CUstream, and a made-up one ends the process. A stream owned
 * elsewhere is wrapped once with `Stream.from(handle)` (the one place a raw
 * handle is taken on trust), or passed as an object implementing
 * `Symbol.for('cuda.stream')`.
 */
export class UnknownStreamHandleError extends StreamsError {
  override readonly name = 'UnknownStreamHandleError';
}
