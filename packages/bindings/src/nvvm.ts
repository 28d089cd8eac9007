import * as generated from './generated/nvvm.js';
import type { GeneratedNvvmFunctions } from './generated/nvvm.js';
import type { nvvmProgram } from './generated/handles.js';
import { namespaceFallback, native } from './native.js';
import { enumsOf, type EnumsOf } from './enums-of.js';

/** libNVVM functions written by hand. */
export interface HandwrittenNvvmFunctions {
  /** `nvvmCompileProgram` on a worker thread; rejects with {@link NvvmError} whose `log` is the program log. */
  nvvmCompileProgramAsync(prog: nvvmProgram, options?: readonly string[] | null): Promise<void>;
}

/** libNVVM's functions and enums. */
export type Nvvm = GeneratedNvvmFunctions & HandwrittenNvvmFunctions & EnumsOf<typeof generated>;

/** libNVVM, the NVVM IR compiler (opened on the first call). Failures throw {@link NvvmError}. */
export const nvvm: Nvvm = Object.freeze(
  Object.assign(Object.create(namespaceFallback.nvvm) as object, native.nvvm, enumsOf(generated)),
) as unknown as Nvvm;
