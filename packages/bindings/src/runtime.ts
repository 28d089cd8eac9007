/**
 * `@cuda-js/bindings/runtime`: what the layers of cuda-js above the bindings
 * (streams, program, core, jit) are built on, beside the C API of the main
 * entry: a handle released exactly once ({@link OwnedHandle}), releases that
 * do not block the event loop ({@link releaseInBackground}), the layout of a
 * packed launch ({@link PACKED_LAUNCH_HEADER}) and of a launch queue's record,
 * the branding of a checked `bigint` as a handle, and the fast exit. An
 * application that calls the C API needs none of it; it is public so that the
 * layers above depend on the bindings only through their `exports`, and may
 * change with them.
 *
 * @module
 */
export { PACKED_LAUNCH_HEADER, LAUNCH_QUEUE_RECORD } from './driver.js';
export { backgroundReleaseFailures, releaseAsync, releaseInBackground, type BackgroundRelease } from './release.js';
export { skipDriverTeardownAtExit } from './fast-exit.js';
export { OwnedHandle, type HandleRelease } from './owned-handle.js';
export { brandHandle } from './brand-handle.js';
