// Barriers, block votes and fences (typed-ir.ts):
// - block barrier: `llvm.nvvm.barrier0` (PTX `bar.sync 0`);
// - block votes: `llvm.nvvm.barrier0.popc/and/or` (`bar.red.*`), barriers too;
// - warp barrier: `llvm.nvvm.bar.warp.sync(mask)` (`bar.warp.sync`);
// - grid barrier: grid-barrier.ts;
// - fences: their rows' NVVM forms (intrinsics/fences.ts: `llvm.nvvm.membar.cta/gl/sys`).
import { type FenceScope, fenceRow } from '../intrinsics/fences.js';
import type { Stmt, VoteMode } from '../typing/typed-ir.js';
import { lowerGridBarrier } from './grid-barrier.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerNvvmForm } from './nvvm-form.js';

/** Every thread of the block waits here; memory written before is seen after by the block. */
export function blockBarrier(ctx: LoweringContext): void {
  ctx.builder.emit(`call void ${ctx.declarations.declare('llvm.nvvm.barrier0', 'void', [])}()`);
}

/** A `barrier` statement; `mask` (u32, warp scope only) is lowered already, all lanes when absent. */
export function lowerBarrier(
  ctx: LoweringContext,
  scope: Extract<Stmt, { op: 'barrier' }>['scope'],
  mask: TypedValue | undefined,
): void {
  if (mask !== undefined && scope !== 'warp') throw new LoweringError(`a ${scope} barrier with a mask`);
  switch (scope) {
    case 'block':
      return blockBarrier(ctx);
    case 'warp': {
      if (mask && mask.type !== 'u32') throw new LoweringError(`warp barrier mask of type ${mask.type}`);
      const fn = ctx.declarations.declare('llvm.nvvm.bar.warp.sync', 'void', ['i32']);
      ctx.builder.emit(`call void ${fn}(i32 ${mask?.ref ?? '-1'})`);
      return;
    }
    case 'grid':
      return lowerGridBarrier(ctx);
  }
  throw new LoweringError(`unknown barrier scope '${scope as string}'`);
}

const BLOCK_VOTES: Partial<Record<VoteMode, string>> = { count: 'popc', and: 'and', or: 'or' };

/** `syncthreads_count/and/or`: a block barrier that counts (i32) or ands/ors (bool) the predicates. */
export function lowerBlockVote(ctx: LoweringContext, mode: VoteMode, predicate: TypedValue): TypedValue {
  const reduction = BLOCK_VOTES[mode];
  if (!reduction) throw new LoweringError(`vote '${mode}' has no block scope`);
  if (predicate.type !== 'bool') throw new LoweringError(`vote predicate of type ${predicate.type}`);
  const b = ctx.builder;
  const fn = ctx.declarations.declare(`llvm.nvvm.barrier0.${reduction}`, 'i32', ['i32']);
  const reduced = b.compute(`call i32 ${fn}(i32 ${b.compute(`zext i1 ${predicate.ref} to i32`)})`);
  if (mode === 'count') return { ref: reduced, type: 'i32' };
  return { ref: b.compute(`icmp ne i32 ${reduced}, 0`), type: 'bool' };
}

/** `threadfence_block`, `threadfence`, `threadfence_system`: their rows' NVVM forms (intrinsics/fences.ts). */
export function lowerFence(ctx: LoweringContext, scope: FenceScope): void {
  const row = fenceRow(scope);
  if (!row) throw new LoweringError(`unknown fence scope '${scope as string}'`);
  lowerNvvmForm(ctx, row.nvvm, {});
}
