import { CoreError } from '../errors.js';

/**
 * NVML could not be used: the library is absent (no NVIDIA driver), could not
 * be loaded, or `nvmlInit_v2` failed (the kernel driver is not loaded, a
 * driver/library version mismatch, ...). `reason` says which, on one line, and
 * `cause` is the error underneath (pathfinder's `LibraryNotFoundError`, listing
 * every place it looked, or an `NvmlError`).
 */
export class SystemUnavailableError extends CoreError {
  override readonly name = 'SystemUnavailableError';
  constructor(
    /** Why NVML is unavailable, on one line. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`system information needs NVML, which is unavailable: ${reason}`, options);
  }
}
