/**
 * The key of the kernel record on a function, `Symbol.for(KERNEL_RECORD_KEY)`:
 * the JIT's own (`@cuda-js/jit`'s KERNEL_RECORD_KEY), written out here so
 * that the plugin loads nothing of the stack at build time (a test checks
 * that the two agree).
 */
export const KERNEL_RECORD_KEY = 'cuda-js.kernel-record';

/** The record format the plugin writes (`@cuda-js/jit`'s KERNEL_RECORD_VERSION). */
export const KERNEL_RECORD_VERSION = 1;
