import { addonFunction } from './native.js';

/**
 * Skips the CUDA driver's teardown when the process exits: registers an exit
 * handler that runs before the exit handlers registered so far (the driver's
 * among them, once `cuInit` ran; call it again after the first context to
 * run before what the driver registered then), flushes C stdio and ends the
 * process with its exit status, leaving the contexts and allocations to the
 * operating system, which reclaims them anyway. The driver's teardown is a
 * large part of a short process's wall time. Not for a process under a CUDA
 * profiler or sanitizer, which flush their data in that teardown, nor where
 * kernels' `printf` output must appear without a synchronize. Linux (glibc)
 * only: elsewhere it does nothing and returns false.
 *
 * @returns whether the handler is registered
 */
export function skipDriverTeardownAtExit(): boolean {
  return addonFunction<() => boolean>('skipDriverTeardownAtExit')();
}
