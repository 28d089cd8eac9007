// The JIT's disk cache: program's CompileCache, shared by every kernel
// that asks for it. The key is program's: the NVVM IR text (which holds
// the kernel's code with its device functions inlined and its captured
// constants and const arrays baked in, and the signature's types), the
// compile options, the target architecture and the toolchain's versions; so
// a change in a callee or a constant is a new key, as it must be (numba's
// key, the kernel's own source and signature, misses both).
import { CompileCache } from '@cuda-js/program';

/** The environment variable that turns the disk cache on for every kernel (`1`); `0` turns it off for every kernel that does not ask for it itself. */
export const JIT_CACHE_VARIABLE = 'CUDA_JS_JIT_CACHE';

let shared: CompileCache | undefined;

/**
 * The cache that kernels with `{ cache: true }` use: one per process, on
 * disk in `CompileCache.defaultDirectory()` (`$CUDA_JS_CACHE_DIR`, else
 * `~/.cache/cuda-js/program`), safe to share between processes (entries are
 * written to a temporary file and renamed; a damaged entry is never loaded
 * and is compiled again). Its `stats()` count hits and misses.
 */
export function jitCache(): CompileCache {
  return (shared ??= new CompileCache({ directory: true }));
}

// The spellings that turn the cache off (`CUDA_JS_JIT_CACHE=false` turned it on).
const OFF = new Set(['', '0', 'false', 'off', 'no']);

/** Whether a kernel uses the disk cache: its own `cache` option, else the environment (`1`, `true`, `on`, `yes`: on; `0`, `false`, `off`, `no` or unset: off). */
export function wantsCache(option: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (option !== undefined) return option;
  const flag = env[JIT_CACHE_VARIABLE];
  return flag !== undefined && !OFF.has(flag.trim().toLowerCase());
}
