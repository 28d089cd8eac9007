import { StreamsError } from './errors.js';

/**
 * A handle or descriptor for sharing CUDA resources between processes that
 * cannot be used: malformed (its shape, a byte length, a size), or asked of,
 * or given to, a resource that does not share (an event made without
 * `interprocess: true`, memory of a pool that is not IPC-enabled, a pool
 * imported from another process). Thrown before any driver call.
 */
export class IpcError extends StreamsError {
  override readonly name = 'IpcError';
}
