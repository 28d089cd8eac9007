import * as generated from './generated/nvjitlink.js';
import type { GeneratedNvjitlinkFunctions } from './generated/nvjitlink.js';
import type { nvJitLinkHandle } from './generated/handles.js';
import { namespaceFallback, native } from './native.js';
import { enumsOf, type EnumsOf } from './enums-of.js';

/** nvJitLink functions written by hand. */
export interface HandwrittenNvJitLinkFunctions {
  /**
   * `nvJitLinkComplete` on the addon's nvJitLink thread (where every nvJitLink call runs), without
   * blocking the event loop; rejects with {@link NvJitLinkError} whose `log` is the error log.
   */
  nvJitLinkCompleteAsync(handle: nvJitLinkHandle): Promise<void>;
}

/** nvJitLink's functions and enums (`nvJitLinkInputType`, `nvJitLinkResult`). */
export type NvJitLink = GeneratedNvjitlinkFunctions & HandwrittenNvJitLinkFunctions & EnumsOf<typeof generated>;

/**
 * nvJitLink, the JIT linker (opened on the first call). Failures throw {@link NvJitLinkError}.
 * Every call runs on one native thread of the addon, since nvJitLink keeps per-thread state.
 */
export const nvjitlink: NvJitLink = Object.freeze(
  Object.assign(Object.create(namespaceFallback.nvjitlink) as object, native.nvjitlink, enumsOf(generated)),
) as unknown as NvJitLink;
