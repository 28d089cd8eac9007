import type { CUstream } from './generated/handles.js';
import { addonFunction } from './native.js';
import type { NullHandle } from './types.js';

/**
 * `cuLaunchHostFunc` with the C function's own ordering: `callback` runs on
 * this JS thread once the work queued on the stream before it is done, and
 * the stream's later work waits until `callback` has returned (the driver's
 * thread waits for the JS thread). `driver.cuLaunchHostFunc`, by contrast,
 * lets the stream go on at once.
 *
 * An exception that `callback` throws becomes an `'uncaughtException'` of
 * this thread (`process.on('uncaughtException')`); the stream goes on either
 * way. A stream is never left waiting for JS that cannot run: a terminated
 * Worker's pending functions, and every pending function at process exit,
 * are released without being called.
 *
 * While such a function is pending, do not block this JS thread on the
 * stream's work (`cuStreamSynchronize`, `cuCtxSynchronize`, a synchronous
 * copy, `cuMemFreeHost`): the stream waits for JS, JS for the stream, and
 * neither returns. Await instead (`cuStreamSynchronizeAsync`); `@cuda-js/streams`
 * refuses the waits that it can see.
 */
export function launchBlockingHostFunc(hStream: CUstream | NullHandle | bigint, callback: () => void): void {
  addonFunction<(hStream: bigint, callback: () => void) => void>('launchBlockingHostFunc')(hStream, callback);
}
