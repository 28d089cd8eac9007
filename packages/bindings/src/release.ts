import { native } from './native.js';

/**
 * The releases that may wait for the device (the driver synchronizes before it
 * frees pinned or non-pool memory, unregisters host memory or unloads code),
 * and so run off the JS thread here.
 */
export type BackgroundRelease =
  | 'cuMemFreeHost'
  | 'cuMemFree'
  | 'cuMemHostUnregister'
  | 'cuLibraryUnload'
  | 'cuModuleUnload';

interface ReleaseFunctions {
  releaseInBackground?(fn: BackgroundRelease, handle: bigint): void;
  releaseAsync?(fn: BackgroundRelease, handle: bigint): Promise<void>;
  backgroundReleaseFailures?(): number;
}
const addon = native as unknown as ReleaseFunctions;

function missing(): never {
  // only without the addon: its namespaces then throw AddonLoadError the same way
  throw new Error('@cuda-js/bindings: the native addon is not loaded');
}

/**
 * Queues `fn(handle)` on the addon's release thread and returns at once: for
 * FinalizationRegistry callbacks and other places that must not block the
 * event loop while a kernel runs. Releases run one at a time, in the order
 * queued, with the context that is current on the calling thread now. A
 * release the driver refuses is only counted ({@link backgroundReleaseFailures}),
 * as there is no caller left to tell.
 */
export function releaseInBackground(fn: BackgroundRelease, handle: bigint): void {
  (addon.releaseInBackground ?? missing)(fn, handle);
}

/**
 * `fn(handle)` on the release thread, as a Promise that settles when the
 * driver is done (and rejects with its CudaError): the non-blocking form of a
 * `close()` that may wait for the device.
 */
export function releaseAsync(fn: BackgroundRelease, handle: bigint): Promise<void> {
  return (addon.releaseAsync ?? missing)(fn, handle);
}

/** How many {@link releaseInBackground} releases the driver refused so far in this process. */
export function backgroundReleaseFailures(): number {
  return (addon.backgroundReleaseFailures ?? missing)();
}
