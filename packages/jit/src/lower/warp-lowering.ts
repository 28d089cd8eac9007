// Warp votes and match (typed-ir.ts), through NVVM's
// `llvm.nvvm.vote.{all,any,uni,ballot}.sync` and `llvm.nvvm.match.{any,all}.sync.*`;
// lane masks by their rows' NVVM forms (intrinsics/lane-masks.ts).
import { bitsOf, isFloat } from '../types/jit-types.js';
import { type LaneMask, laneMaskRow } from '../intrinsics/lane-masks.js';
import type { VoteMode } from '../types/typed-ir.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerNvvmForm } from './nvvm-form.js';

const WARP_VOTES: Partial<Record<VoteMode, string>> = { all: 'all', any: 'any', eq: 'uni' };

/** A warp vote over the lanes of `mask` (u32): all/any/eq give bool, ballot u32. */
export function lowerWarpVote(ctx: LoweringContext, mode: VoteMode, mask: TypedValue, predicate: TypedValue): TypedValue {
  if (mask.type !== 'u32') throw new LoweringError(`vote mask of type ${mask.type}`);
  if (predicate.type !== 'bool') throw new LoweringError(`vote predicate of type ${predicate.type}`);
  const b = ctx.builder;
  if (mode === 'ballot') {
    const fn = ctx.declarations.declare('llvm.nvvm.vote.ballot.sync', 'i32', ['i32', 'i1']);
    return { ref: b.compute(`call i32 ${fn}(i32 ${mask.ref}, i1 ${predicate.ref})`), type: 'u32' };
  }
  const vote = WARP_VOTES[mode];
  if (!vote) throw new LoweringError(`vote '${mode}' has no warp scope`);
  const fn = ctx.declarations.declare(`llvm.nvvm.vote.${vote}.sync`, 'i1', ['i32', 'i1']);
  return { ref: b.compute(`call i1 ${fn}(i32 ${mask.ref}, i1 ${predicate.ref})`), type: 'bool' };
}

const MATCH_TYPES = new Set(['i32', 'u32', 'i64', 'u64', 'f32', 'f64']);

/** `match.sync` of `value` over `mask`: `any` the lanes with this lane's value, `all` `mask` when all are equal, else 0 (u32). */
export function lowerMatch(ctx: LoweringContext, mode: 'any' | 'all', mask: TypedValue, value: TypedValue): TypedValue {
  if (mask.type !== 'u32') throw new LoweringError(`match mask of type ${mask.type}`);
  if (!MATCH_TYPES.has(value.type)) throw new LoweringError(`match of ${value.type}`);
  const b = ctx.builder;
  const i = `i${bitsOf(value.type)}`;
  // Floats match by their bits.
  const bits = isFloat(value.type) ? b.compute(`bitcast ${registerType(value.type)} ${value.ref} to ${i}`) : value.ref;
  if (mode === 'any') {
    const fn = ctx.declarations.declare(`llvm.nvvm.match.any.sync.${i}`, 'i32', ['i32', i]);
    return { ref: b.compute(`call i32 ${fn}(i32 ${mask.ref}, ${i} ${bits})`), type: 'u32' };
  }
  if (mode !== 'all') throw new LoweringError(`unknown match mode '${mode as string}'`);
  const fn = ctx.declarations.declare(`llvm.nvvm.match.all.sync.${i}p`, '{ i32, i1 }', ['i32', i]);
  const pair = b.compute(`call { i32, i1 } ${fn}(i32 ${mask.ref}, ${i} ${bits})`);
  const lanes = b.compute(`extractvalue { i32, i1 } ${pair}, 0`);
  const equal = b.compute(`extractvalue { i32, i1 } ${pair}, 1`);
  return { ref: b.compute(`select i1 ${equal}, i32 ${lanes}, i32 0`), type: 'u32' };
}

/** A lane mask (u32), by its row of intrinsics/lane-masks.ts: `activemask`, or `%lanemask_lt` and its kin. */
export function lowerLaneMask(ctx: LoweringContext, which: LaneMask): TypedValue {
  const row = laneMaskRow(which);
  if (!row) throw new LoweringError(`unknown lane mask '${which}'`);
  const ref = lowerNvvmForm(ctx, row.nvvm, {});
  if (ref === undefined) throw new LoweringError(`lane mask '${which}' has an NVVM form that gives no value`);
  return { ref, type: 'u32' };
}
