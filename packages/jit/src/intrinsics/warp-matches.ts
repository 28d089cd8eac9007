/**
 * The warp matches: `cuda.<name>(mask, value)` over the lanes of `mask`,
 * comparing 32- and 64-bit integers and floats by their bits (typed-ir.ts's
 * `match` node, keyed by the row's `mode`), u32. The NVVM form, by the
 * value's width, takes `$mask` (i32) and `$0` (the value's bits). The kernel
 * uses the warp collectives: the simulator runs it in lockstep, where the
 * scheduler gives every lane the row's simulator form of `$same` (the lanes
 * of the mask whose value equals this lane's), `$equal` (whether all are
 * equal) and `$mask` (the mask given). One row declares a match for every
 * stage: the `cuda` stub and its type (its doc comment is the row's), the
 * typing rule, the lowering and the simulator.
 */
import type { ScalarName } from '../typing/jit-types.js';
import type { LlvmForm } from './forms.js';

export interface WarpMatchRow {
  /** numba's spelling. */
  readonly numba: string;
  /** The key of the IR node (`mode`). */
  readonly mode: string;
  /** The NVVM form, the first whose `types` hold the value's. */
  readonly nvvm: readonly (LlvmForm & { readonly types: readonly ScalarName[] })[];
  /** A JS expression of `$same`, `$equal` and `$mask`. */
  readonly simulator: string;
}

const WIDE: readonly ScalarName[] = Object.freeze(['i64', 'u64', 'f64']);
const NARROW: readonly ScalarName[] = Object.freeze(['i32', 'u32', 'f32']);

export const WARP_MATCHES = Object.freeze({
  /** The lanes of `mask` whose value equals this lane's. */
  match_any_sync: {
    numba: 'cuda.match_any_sync',
    mode: 'any',
    nvvm: [
      { types: NARROW, llvm: ['%r = call i32 @llvm.nvvm.match.any.sync.i32(i32 $mask, i32 $0)'] },
      { types: WIDE, llvm: ['%r = call i32 @llvm.nvvm.match.any.sync.i64(i32 $mask, i64 $0)'] },
    ],
    simulator: '$same >>> 0',
  },
  /** `mask` if every lane of `mask` has the same value, else 0. */
  match_all_sync: {
    numba: 'cuda.match_all_sync',
    mode: 'all',
    nvvm: [
      {
        types: NARROW,
        llvm: [
          '%p = call { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32 $mask, i32 $0)',
          '%l = extractvalue { i32, i1 } %p, 0',
          '%e = extractvalue { i32, i1 } %p, 1',
          '%r = select i1 %e, i32 %l, i32 0',
        ],
      },
      {
        types: WIDE,
        llvm: [
          '%p = call { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32 $mask, i64 $0)',
          '%l = extractvalue { i32, i1 } %p, 0',
          '%e = extractvalue { i32, i1 } %p, 1',
          '%r = select i1 %e, i32 %l, i32 0',
        ],
      },
    ],
    simulator: '($equal ? $mask >>> 0 : 0)',
  },
} as const satisfies Record<string, WarpMatchRow>);

/** A match's mode, as the IR names it. */
export type WarpMatchMode = (typeof WARP_MATCHES)[keyof typeof WARP_MATCHES]['mode'];

/** The row whose `mode` is `mode`, or undefined. */
export function warpMatchRow(mode: string): WarpMatchRow | undefined {
  return Object.values(WARP_MATCHES).find((row: WarpMatchRow) => row.mode === mode);
}
