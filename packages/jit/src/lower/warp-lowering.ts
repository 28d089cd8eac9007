// Warp votes, matches and lane masks by their rows' NVVM forms
// (intrinsics/warp-votes.ts, warp-matches.ts, lane-masks.ts).
import { bitsOf, isFloat } from '../typing/jit-types.js';
import { type LaneMask, laneMaskRow } from '../intrinsics/lane-masks.js';
import { type WarpMatchMode, warpMatchRow } from '../intrinsics/warp-matches.js';
import { warpVoteRow } from '../intrinsics/warp-votes.js';
import type { VoteMode } from '../typing/typed-ir.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerLlvmForm, lowerNvvmForm } from './nvvm-form.js';

/** A warp vote over the lanes of `mask` (u32), by its row's NVVM form (intrinsics/warp-votes.ts): all/any/eq give bool, ballot u32. */
export function lowerWarpVote(
  ctx: LoweringContext,
  mode: VoteMode,
  mask: TypedValue,
  predicate: TypedValue,
): TypedValue {
  if (mask.type !== 'u32') throw new LoweringError(`vote mask of type ${mask.type}`);
  if (predicate.type !== 'bool') throw new LoweringError(`vote predicate of type ${predicate.type}`);
  const row = warpVoteRow(mode);
  if (!row) throw new LoweringError(`vote '${mode}' has no warp scope`);
  const ref = lowerLlvmForm(ctx, row.nvvm, { mask: mask.ref, 0: predicate.ref });
  if (ref === undefined) throw new LoweringError(`vote '${mode}' has an NVVM form that gives no value`);
  return { ref, type: row.result };
}

const MATCH_TYPES = new Set(['i32', 'u32', 'i64', 'u64', 'f32', 'f64']);

/** `match.sync` of `value` over `mask` by its row's NVVM form (intrinsics/warp-matches.ts): `any` the lanes with this lane's value, `all` `mask` when all are equal, else 0 (u32). */
export function lowerMatch(ctx: LoweringContext, mode: WarpMatchMode, mask: TypedValue, value: TypedValue): TypedValue {
  if (mask.type !== 'u32') throw new LoweringError(`match mask of type ${mask.type}`);
  if (!MATCH_TYPES.has(value.type)) throw new LoweringError(`match of ${value.type}`);
  const row = warpMatchRow(mode);
  if (!row) throw new LoweringError(`unknown match mode '${mode as string}'`);
  const b = ctx.builder;
  const i = `i${bitsOf(value.type)}`;
  // Floats match by their bits.
  const bits = isFloat(value.type) ? b.compute(`bitcast ${registerType(value.type)} ${value.ref} to ${i}`) : value.ref;
  const form = row.nvvm.find((f) => f.types.includes(value.type));
  if (!form) throw new LoweringError(`match '${mode}' of ${value.type}`);
  const ref = lowerLlvmForm(ctx, form, { mask: mask.ref, 0: bits });
  if (ref === undefined) throw new LoweringError(`match '${mode}' has an NVVM form that gives no value`);
  return { ref, type: 'u32' };
}

/** A lane mask (u32), by its row of intrinsics/lane-masks.ts: `activemask`, or `%lanemask_lt` and its kin. */
export function lowerLaneMask(ctx: LoweringContext, which: LaneMask): TypedValue {
  const row = laneMaskRow(which);
  if (!row) throw new LoweringError(`unknown lane mask '${which}'`);
  const ref = lowerNvvmForm(ctx, row.nvvm, {});
  if (ref === undefined) throw new LoweringError(`lane mask '${which}' has an NVVM form that gives no value`);
  return { ref, type: 'u32' };
}
