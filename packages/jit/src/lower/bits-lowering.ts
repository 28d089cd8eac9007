// Bit functions (typed-ir.ts's BitFunction) through LLVM's own intrinsics,
// which NVPTX makes `popc`, `clz` and `brev`: popc `llvm.ctpop`, clz
// `llvm.ctlz` (defined at 0: the width), ffs `x == 0 ? 0 : cttz(x) + 1`,
// brev `llvm.bitreverse`. popc, clz and ffs give i32, brev the argument's type.
import type { ScalarName } from '../types/jit-types.js';
import type { BitFunction } from '../types/typed-ir.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

const BIT_TYPES: ReadonlySet<ScalarName> = new Set<ScalarName>(['i32', 'u32', 'i64', 'u64']);

export function lowerBits(ctx: LoweringContext, fn: BitFunction, arg: TypedValue): TypedValue {
  if (!BIT_TYPES.has(arg.type)) throw new LoweringError(`bit function '${fn}' on ${arg.type}`);
  const b = ctx.builder;
  const t = registerType(arg.type);
  const call = (name: string, zeroUndefined?: boolean): string => {
    const extra = zeroUndefined === undefined ? [] : ['i1'];
    const intrinsic = ctx.declarations.declare(`llvm.${name}.${t}`, t, [t, ...extra]);
    return b.compute(`call ${t} ${intrinsic}(${t} ${arg.ref}${zeroUndefined === undefined ? '' : `, i1 ${zeroUndefined}`})`);
  };
  const toI32 = (ref: string): TypedValue => ({ ref: t === 'i32' ? ref : b.compute(`trunc ${t} ${ref} to i32`), type: 'i32' });
  switch (fn) {
    case 'popc':
      return toI32(call('ctpop'));
    case 'clz':
      return toI32(call('ctlz', false));
    case 'ffs': {
      const position = b.compute(`add ${t} ${call('cttz', false)}, 1`);
      const isZero = b.compute(`icmp eq ${t} ${arg.ref}, 0`);
      return toI32(b.compute(`select i1 ${isZero}, ${t} 0, ${t} ${position}`));
    }
    case 'brev':
      return { ref: call('bitreverse'), type: arg.type };
  }
  throw new LoweringError(`unknown bit function '${fn}'`);
}
