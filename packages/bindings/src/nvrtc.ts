import * as generated from './generated/nvrtc.js';
import type { GeneratedNvrtcFunctions } from './generated/nvrtc.js';
import type { nvrtcProgram } from './generated/handles.js';
import { namespaceFallback, native } from './native.js';
import { enumsOf, type EnumsOf } from './enums-of.js';

/** NVRTC functions written by hand. */
export interface HandwrittenNvrtcFunctions {
  /** `nvrtcCompileProgram` on a worker thread; rejects with {@link NvrtcError} whose `log` is the program log. */
  nvrtcCompileProgramAsync(prog: nvrtcProgram, options?: readonly string[] | null): Promise<void>;
}

/** NVRTC's functions, plus `nvrtcVersion(): { major, minor }`-style results, and its enums. */
export type Nvrtc = GeneratedNvrtcFunctions & HandwrittenNvrtcFunctions & EnumsOf<typeof generated>;

/** NVRTC, the runtime C++ compiler (opened on the first call). Failures throw {@link NvrtcError}. */
export const nvrtc: Nvrtc = Object.freeze(
  Object.assign(Object.create(namespaceFallback.nvrtc) as object, native.nvrtc, enumsOf(generated)),
) as unknown as Nvrtc;
