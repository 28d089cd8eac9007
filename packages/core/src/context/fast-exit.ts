import { skipDriverTeardownAtExit } from '@cuda-js/bindings/runtime';

/** The environment variable that skips the driver's teardown at exit (`1`): see bindings' `skipDriverTeardownAtExit`. */
export const FAST_EXIT_VARIABLE = 'CUDA_JS_FAST_EXIT';

/**
 * With `CUDA_JS_FAST_EXIT=1` (and no CUDA profiler or sanitizer injected,
 * `CUDA_INJECTION64_PATH`), registers the exit handler that skips the
 * driver's teardown: called after `cuInit` and after the first context, so
 * that it runs before the driver's own handlers.
 */
export function applyFastExit(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[FAST_EXIT_VARIABLE] !== '1' || env['CUDA_INJECTION64_PATH']) return false;
  try {
    return skipDriverTeardownAtExit();
  } catch {
    return false; // an addon without it: the driver tears down as usual
  }
}
