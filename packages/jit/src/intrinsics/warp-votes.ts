/**
 * The warp votes: `cuda.<name>(mask, predicate)` over the lanes of `mask`
 * (typed-ir.ts's `vote` node of scope `warp`, keyed by the row's `mode`).
 * The kernel uses the warp collectives: the simulator runs it in lockstep,
 * where the scheduler gathers the predicates of the lanes of `mask` into
 * `$ballot` (bit k: lane k's predicate) and gives every lane the row's
 * simulator form of `$ballot` and `$mask`. The NVVM form's `$mask` is the
 * mask (i32) and `$0` the predicate (i1). One row declares a vote for every
 * stage: the `cuda` stub and its type (its doc comment is the row's), the
 * typing rule, the lowering and the simulator.
 */
import type { LlvmForm } from './forms.js';

export interface WarpVoteRow {
  /** numba's spelling. */
  readonly numba: string;
  /** The key of the IR node (`mode`). */
  readonly mode: string;
  readonly result: 'bool' | 'u32';
  readonly nvvm: LlvmForm;
  /** A JS expression of `$ballot` and `$mask` (u32 numbers). */
  readonly simulator: string;
}

export const WARP_VOTES = Object.freeze({
  /** Whether the predicate is true in every lane of `mask`. */
  all_sync: {
    numba: 'cuda.all_sync',
    mode: 'all',
    result: 'bool',
    nvvm: { llvm: ['%r = call i1 @llvm.nvvm.vote.all.sync(i32 $mask, i1 $0)'] },
    simulator: '$ballot === $mask',
  },
  /** Whether the predicate is true in any lane of `mask`. */
  any_sync: {
    numba: 'cuda.any_sync',
    mode: 'any',
    result: 'bool',
    nvvm: { llvm: ['%r = call i1 @llvm.nvvm.vote.any.sync(i32 $mask, i1 $0)'] },
    simulator: '$ballot !== 0',
  },
  /** Whether the predicate is the same in every lane of `mask`. */
  eq_sync: {
    numba: 'cuda.eq_sync',
    mode: 'eq',
    result: 'bool',
    nvvm: { llvm: ['%r = call i1 @llvm.nvvm.vote.uni.sync(i32 $mask, i1 $0)'] },
    simulator: '$ballot === 0 || $ballot === $mask',
  },
  /** The lanes of `mask` whose predicate is true (bit k: lane k). */
  ballot_sync: {
    numba: 'cuda.ballot_sync',
    mode: 'ballot',
    result: 'u32',
    nvvm: { llvm: ['%r = call i32 @llvm.nvvm.vote.ballot.sync(i32 $mask, i1 $0)'] },
    simulator: '$ballot >>> 0',
  },
} as const satisfies Record<string, WarpVoteRow>);

/** A warp vote's mode, as the IR names it. */
export type WarpVoteMode = (typeof WARP_VOTES)[keyof typeof WARP_VOTES]['mode'];

/** The row whose `mode` is `mode`, or undefined (the block votes, `count`, `and`, `or`, have none). */
export function warpVoteRow(mode: string): WarpVoteRow | undefined {
  return Object.values(WARP_VOTES).find((row: WarpVoteRow) => row.mode === mode);
}
