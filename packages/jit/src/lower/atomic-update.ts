// The new value of an element under an atomic, from its old value, by the
// formula of its row in intrinsics/atomics.ts, in straight-line code
// (selects, no branches): what a compare-and-swap loop stores, and what a
// thread's own local memory gets without any atomic instruction.
import type { AtomicFunction, AtomicRow } from '../intrinsics/atomics.js';
import type { ScalarName } from '../typing/jit-types.js';
import { lowerBinary } from './arithmetic-lowering.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerMath } from './math-lowering.js';
import { lowerLlvmForm } from './nvvm-form.js';

/** `fn`'s new element value from `old`, the operand `value` and (`compare` rows only) `compare`, all of `type`, by the row's formula. */
export function atomicUpdate(
  ctx: LoweringContext,
  row: AtomicRow,
  fn: AtomicFunction,
  type: ScalarName,
  old: string,
  value: string,
  compare?: string,
): string {
  if (!row.types.includes(type)) throw new LoweringError(`atomic '${fn}' on ${type}; it takes ${row.types.join(', ')}`);
  if ((row.operands === 'compare') !== (compare !== undefined))
    throw new LoweringError(`atomic '${fn}' ${compare === undefined ? 'without' : 'with'} a compare value`);
  const formula = row.update.nvvm.find((form) => form.types === undefined || form.types.includes(type));
  if (formula === undefined) throw new LoweringError(`atomic '${fn}' has no formula for ${type}`);
  const typed = (ref: string): TypedValue => ({ ref, type });
  if ('binary' in formula) return lowerBinary(ctx, formula.binary, typed(old), typed(value)).ref;
  if ('math' in formula) return lowerMath(ctx, formula.math, type, [typed(old), typed(value)]).ref;
  if ('value' in formula) return value;
  const next = lowerLlvmForm(ctx, formula, {
    t: registerType(type),
    old,
    value,
    ...(compare === undefined ? {} : { compare }),
  });
  if (next === undefined) throw new LoweringError(`atomic '${fn}' has a formula that gives no value`);
  return next;
}
