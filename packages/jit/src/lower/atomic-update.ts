// The new value of an element under an atomic function, from its old value,
// by typed-ir.ts's AtomicFunction formulas, in straight-line code (selects,
// no branches): what a compare-and-swap loop stores, and what a thread's own
// local memory gets without any atomic instruction.
import { isFloat, type ScalarName } from '../types/jit-types.js';
import type { AtomicFunction } from '../types/typed-ir.js';
import { compareRefs, lowerBinary } from './arithmetic-lowering.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerMath } from './math-lowering.js';

/**
 * `fn`'s new element value from `old`, the operand `value` and (`cas` only) `compare`, all of `type`:
 * add/sub/and/or/xor `old op value`; min/max by MATH_FUNCTIONS' formulas with `a = old`, `b = value`
 * (NaN wins); exch `value`; inc `old >= value ? 0 : old + 1`; dec `old == 0 || old > value ? value : old - 1`;
 * cas `old == compare ? value : old`.
 */
export function atomicUpdate(ctx: LoweringContext, fn: AtomicFunction, type: ScalarName, old: string, value: string, compare?: string): string {
  const b = ctx.builder;
  const t = registerType(type);
  const typed = (ref: string): TypedValue => ({ ref, type });
  switch (fn) {
    case 'add':
    case 'sub':
    case 'and':
    case 'or':
    case 'xor':
      return lowerBinary(ctx, fn, typed(old), typed(value)).ref;
    case 'min':
    case 'max':
      return lowerMath(ctx, fn, type, [typed(old), typed(value)]).ref;
    case 'exch':
      return value;
    case 'inc': {
      unsignedOnly(fn, type);
      const wraps = compareRefs(ctx, 'ge', type, old, value);
      const next = b.compute(`add ${t} ${old}, 1`);
      return b.compute(`select i1 ${wraps}, ${t} 0, ${t} ${next}`);
    }
    case 'dec': {
      unsignedOnly(fn, type);
      const isZero = b.compute(`icmp eq ${t} ${old}, 0`);
      const above = compareRefs(ctx, 'gt', type, old, value);
      const wraps = b.compute(`or i1 ${isZero}, ${above}`);
      const previous = b.compute(`sub ${t} ${old}, 1`);
      return b.compute(`select i1 ${wraps}, ${t} ${value}, ${t} ${previous}`);
    }
    case 'cas': {
      if (compare === undefined) throw new LoweringError(`atomic 'cas' without a compare value`);
      if (isFloat(type)) throw new LoweringError(`atomic 'cas' on ${type}`);
      const equal = b.compute(`icmp eq ${t} ${old}, ${compare}`);
      return b.compute(`select i1 ${equal}, ${t} ${value}, ${t} ${old}`);
    }
  }
  throw new LoweringError(`unknown atomic function '${fn}'`);
}

function unsignedOnly(fn: AtomicFunction, type: ScalarName): void {
  if (type !== 'u32' && type !== 'u64') throw new LoweringError(`atomic '${fn}' on ${type}; it takes u32 or u64`);
}
