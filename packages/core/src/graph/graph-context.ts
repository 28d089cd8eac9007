import { driver, type CUcontext } from '@cuda-js/bindings';

/**
 * Runs `fn` with `context` (a CUcontext) current on this thread, and restores
 * the context that was current before; nothing is pushed when it already is.
 */
export function withContext<T>(context: CUcontext, fn: () => T): T {
  if (driver.cuCtxGetCurrent() === context) return fn();
  driver.cuCtxPushCurrent(context);
  try {
    return fn();
  } finally {
    driver.cuCtxPopCurrent();
  }
}
