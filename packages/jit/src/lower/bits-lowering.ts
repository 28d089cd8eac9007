// Bit functions: the NVVM form of their row in intrinsics/bits.ts (LLVM's
// own intrinsics, which NVPTX makes `popc`, `clz`, `brev`, …), whose value
// has the argument's type and is truncated to i32 where the row's result is i32.
import { bitRow, type BitFunction } from '../intrinsics/bits.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerLlvmForm } from './nvvm-form.js';

export function lowerBits(ctx: LoweringContext, fn: BitFunction, arg: TypedValue): TypedValue {
  const row = bitRow(fn);
  if (!row) throw new LoweringError(`unknown bit function '${fn}'`);
  if (!row.argTypes.includes(arg.type)) throw new LoweringError(`bit function '${fn}' on ${arg.type}`);
  const t = registerType(arg.type);
  const ref = lowerLlvmForm(ctx, row.nvvm, { t, 0: arg.ref });
  if (ref === undefined) throw new LoweringError(`bit function '${fn}' has an NVVM form that gives no value`);
  if (row.result === 'arg') return { ref, type: arg.type };
  return { ref: t === 'i32' ? ref : ctx.builder.compute(`trunc ${t} ${ref} to i32`), type: 'i32' };
}
