/**
 * The warp shuffles: `cuda.<name>(mask, value, lane, width?)` (typed-ir.ts's
 * `shuffle` node, keyed by the row's `mode`): each lane of `mask` gets the
 * value of a source lane within its segment of `width` lanes, or its own
 * value where the source is outside the segment. The NVVM form is PTX's
 * `shfl.sync.<ptx>` (`llvm.nvvm.shfl.sync.*`; 64-bit values as two halves),
 * whose `c` operand packs the segment mask and the clamp (`clamp`: 31, the
 * segment's last lane, or 0, its first): PTX's own mode computes the
 * contract where `direct` says (`always`; `warp`: a constant lane in
 * [0, 32); `width`: a constant lane in [0, width), with a constant width);
 * otherwise the source lane is `source.llvm` of `$laneid` and `$lane`
 * (i32), kept where it is inside the segment, and read with `idx`. The
 * simulator's scheduler computes the source lane by `source.simulator` of
 * `$i` (this lane), `$lane`, `$segment` (the segment's first lane) and
 * `$width`. One row declares a shuffle for every stage: the `cuda` stub and
 * its type (its doc comment is the row's), the typing rule, the lowering and
 * the simulator.
 */
export interface WarpShuffleRow {
  /** numba's spelling. */
  readonly numba: string;
  /** The key of the IR node (`mode`). */
  readonly mode: string;
  /** What the third argument is called, for messages. */
  readonly lane: string;
  readonly ptx: 'idx' | 'up' | 'down' | 'bfly';
  readonly clamp: 0 | 31;
  readonly direct: 'always' | 'warp' | 'width';
  /** The source lane where PTX's mode is not the contract (no `llvm` where `direct` is `always`). */
  readonly source: { readonly llvm?: string; readonly simulator: string };
}

export const WARP_SHUFFLES = Object.freeze({
  /** The value of lane `srcLane` of the segment. */
  shfl_sync: {
    numba: 'cuda.shfl_sync',
    mode: 'idx',
    lane: 'srcLane',
    ptx: 'idx',
    clamp: 31,
    direct: 'always',
    source: { simulator: '$segment + ($lane & ($width - 1))' },
  },
  /** The value of lane `laneid - delta`. */
  shfl_up_sync: {
    numba: 'cuda.shfl_up_sync',
    mode: 'up',
    lane: 'delta',
    ptx: 'up',
    clamp: 0,
    direct: 'warp',
    source: { llvm: 'sub i32 $laneid, $lane', simulator: '$i - $lane' },
  },
  /** The value of lane `laneid + delta`. */
  shfl_down_sync: {
    numba: 'cuda.shfl_down_sync',
    mode: 'down',
    lane: 'delta',
    ptx: 'down',
    clamp: 31,
    direct: 'warp',
    source: { llvm: 'add i32 $laneid, $lane', simulator: '$i + $lane' },
  },
  /** The value of lane `laneid ^ laneMask`. */
  shfl_xor_sync: {
    numba: 'cuda.shfl_xor_sync',
    mode: 'xor',
    lane: 'laneMask',
    ptx: 'bfly',
    clamp: 31,
    direct: 'width',
    source: { llvm: 'xor i32 $laneid, $lane', simulator: '$i ^ $lane' },
  },
} as const satisfies Record<string, WarpShuffleRow>);

/** A shuffle's mode, as the IR names it. */
export type WarpShuffleMode = (typeof WARP_SHUFFLES)[keyof typeof WARP_SHUFFLES]['mode'];

/** The row whose `mode` is `mode`, or undefined. */
export function warpShuffleRow(mode: string): WarpShuffleRow | undefined {
  return Object.values(WARP_SHUFFLES).find((row: WarpShuffleRow) => row.mode === mode);
}
