/**
 * The root of every error that @cuda-js/streams defines (`IpcError`,
 * `HostFunctionError`, `HostFunctionDeadlockError`): one `instanceof` check
 * for them all. Use after `close()` is the bindings' shared
 * `ClosedResourceError`, failed driver calls the bindings' `CudaError`.
 */
export class StreamsError extends Error {
  override readonly name: string = 'StreamsError';
}
