import { StreamsError } from './errors.js';

/**
 * A JS function launched on a stream (`launchHostFunction`) threw: the
 * thrown value is the `cause`. The stream's later work ran regardless.
 */
export class HostFunctionError extends StreamsError {
  override readonly name = 'HostFunctionError';
  constructor(
    /** The CUstream handle that the function was launched on. */
    readonly stream: bigint,
    cause: unknown,
  ) {
    super(
      `a host function launched on stream 0x${stream.toString(16)} threw: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`,
      { cause },
    );
  }
}

/**
 * A blocking wait that would never return: the work it waits for includes a
 * JS host function that can only run once this thread is free again. Await
 * instead (`stream.synchronized()`, `event.completed()`, `closeAsync()`).
 */
export class HostFunctionDeadlockError extends StreamsError {
  override readonly name = 'HostFunctionDeadlockError';
}
