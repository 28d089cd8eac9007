/**
 * The lane masks: `cuda.<name>()`, a u32 of lanes of the thread's warp
 * (typed-ir.ts's `lanemask` node, keyed by the row's `which`). `collective`
 * rows depend on which lanes run together (`activemask`): the kernel then
 * runs in the simulator's lockstep mode, where the scheduler answers them,
 * and their inline PTX is convergent. The others are a special register of
 * the lane (`%lanemask_lt`, …), and their simulator form computes it from
 * `$lane` (the thread's lane, 0 to 31). One row declares a lane mask for
 * every stage: the `cuda` stub and its type (its doc comment is the row's),
 * the typing rule, the lowering and the simulator.
 */
import type { NvvmForm } from './forms.js';

export interface LaneMaskRow {
  /** numba's spelling. */
  readonly numba: string;
  /** The key of the IR node (`which`). */
  readonly which: string;
  readonly nvvm: NvvmForm;
  /** A JS expression of `$lane`, or `collective` where the simulator's scheduler answers it. */
  readonly simulator: string;
  readonly collective?: boolean;
}

const register = (which: string, numba: string, simulator: string) =>
  ({
    numba,
    which,
    nvvm: { llvm: [`%r = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.${which}()`] },
    simulator,
  }) as const satisfies LaneMaskRow;

export const LANE_MASKS = Object.freeze({
  /** The lanes now executing together (`activemask.b32`; NVVM has no intrinsic for it). */
  activemask: {
    numba: 'cuda.activemask',
    which: 'activemask',
    nvvm: { ptx: 'activemask.b32 $0;', constraints: '=r', result: 'i32', convergent: true },
    simulator: 'collective',
    collective: true,
  },
  /** The lanes below this one (`%lanemask_lt`). */
  lanemask_lt: register('lt', 'cuda.lanemask_lt', '(((1 << $lane) - 1) >>> 0)'),
  /** The lanes up to this one (`%lanemask_le`). */
  lanemask_le: register('le', 'cuda.lanemask_le', '(((2 << $lane) - 1) >>> 0)'),
  /** This lane (`%lanemask_eq`). */
  lanemask_eq: register('eq', 'cuda.lanemask_eq', '((1 << $lane) >>> 0)'),
  /** The lanes from this one up (`%lanemask_ge`). */
  lanemask_ge: register('ge', 'cuda.lanemask_ge', '(~((1 << $lane) - 1) >>> 0)'),
  /** The lanes above this one (`%lanemask_gt`). */
  lanemask_gt: register('gt', 'cuda.lanemask_gt', '(~((2 << $lane) - 1) >>> 0)'),
} as const satisfies Record<string, LaneMaskRow>);

/** A lane mask as the IR names it (`which`): `activemask`, `lt`, `le`, `eq`, `ge`, `gt`. */
export type LaneMask = (typeof LANE_MASKS)[keyof typeof LANE_MASKS]['which'];

/** The row whose `which` is `which`, or undefined. */
export function laneMaskRow(which: string): LaneMaskRow | undefined {
  return Object.values(LANE_MASKS).find((row: LaneMaskRow) => row.which === which);
}
