import { driver } from '@cuda-js/bindings';

/**
 * Runs `fn` with `context` (a CUcontext) current on this thread, and restores
 * the context that was current before; nothing is pushed when it already is.
 */
export function withContext<T>(context: bigint, fn: () => T): T {
  if ((driver.cuCtxGetCurrent() as bigint) === context) return fn();
  driver.cuCtxPushCurrent(context as never);
  try {
    return fn();
  } finally {
    driver.cuCtxPopCurrent();
  }
}
