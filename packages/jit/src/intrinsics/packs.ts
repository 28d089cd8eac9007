/**
 * The fragment packers: `cuda.<name>(lo, hi)` rounds two f32 values to a
 * 16-bit float type (to nearest, ties to even) and packs them in a u32, `lo`
 * in the lower half: the register of an mma's A or B fragment
 * (intrinsics/mma.ts). typed-ir.ts's `pack` node, keyed by the row's `to`.
 * The NVVM form is inline PTX `cvt.rn.<t>x2.f32` (sm_80 and later), whose
 * first source goes to the upper half (so `$2`, `hi`, comes first); the
 * simulator form calls the runtime's 16-bit encoders. One row declares a
 * packer for every stage.
 */
import type { AsmForm } from './forms.js';

export interface PackRow {
  /** The 16-bit float type of both halves. */
  readonly to: 'bf16' | 'f16';
  /** The lowest SM architecture that has the instruction. */
  readonly minArch: number;
  /** Inline PTX: `$0` the u32, `$1` lo, `$2` hi (f32). */
  readonly nvvm: AsmForm;
  /** A JS expression of `$0` (lo) and `$1` (hi) giving the u32. */
  readonly simulator: string;
}

export const PACKS = Object.freeze({
  /** Two f32 values rounded to bf16 (to nearest, ties to even), packed in a u32: `lo` in the lower half (`cvt.rn.bf16x2.f32`, sm_80+). */
  pack_bf16x2: {
    to: 'bf16',
    minArch: 80,
    nvvm: { ptx: 'cvt.rn.bf16x2.f32 $0, $2, $1;', constraints: '=r,f,f', result: 'i32', sideEffect: false },
    simulator: '(((bfloat16Bits($1) << 16) | bfloat16Bits($0)) >>> 0)',
  },
  /** Two f32 values rounded to f16 (to nearest, ties to even), packed in a u32: `lo` in the lower half (`cvt.rn.f16x2.f32`, sm_80+). */
  pack_f16x2: {
    to: 'f16',
    minArch: 80,
    nvvm: { ptx: 'cvt.rn.f16x2.f32 $0, $2, $1;', constraints: '=r,f,f', result: 'i32', sideEffect: false },
    simulator: '(((float16Bits($1) << 16) | float16Bits($0)) >>> 0)',
  },
} as const satisfies Record<string, PackRow>);

/** A packer, as the IR names it (its half type). */
export type PackTo = (typeof PACKS)[keyof typeof PACKS]['to'];

/** The row whose `to` is `to`, or undefined. */
export function packRow(to: string): PackRow | undefined {
  return Object.values(PACKS).find((row: PackRow) => row.to === to);
}
