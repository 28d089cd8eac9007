// The tensor-core mma rows (intrinsics/mma.ts): inline PTX whose four f32
// outputs come back as a struct, `{ float, float, float, float }`.
import { type MmaShape, mmaRow } from '../intrinsics/mma.js';
import { type PackTo, packRow } from '../intrinsics/packs.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerAsmForm } from './nvvm-form.js';

/** `mma.sync` of `shape` on the fragments' registers (a, b, c, in order); gives the D fragment's values. */
export function lowerMma(
  ctx: LoweringContext,
  shape: MmaShape,
  a: readonly TypedValue[],
  b: readonly TypedValue[],
  c: readonly TypedValue[],
): TypedValue[] {
  const row = mmaRow(shape);
  if (!row) throw new LoweringError(`unknown mma shape '${shape as string}'`);
  const { fragments } = row;
  const check = (values: readonly TypedValue[], which: 'a' | 'b' | 'c'): void => {
    const { count, type } = fragments[which];
    if (values.length !== count || values.some((v) => v.type !== type))
      throw new LoweringError(`mma '${shape}': fragment ${which} is not ${count} × ${type}`);
  };
  check(a, 'a');
  check(b, 'b');
  check(c, 'c');
  const operands = [...a, ...b, ...c].map((v) => ({ type: registerType(v.type), ref: v.ref }));
  const struct = lowerAsmForm(ctx, row.nvvm, {}, operands);
  if (struct === undefined) throw new LoweringError(`mma '${shape}' has an NVVM form that gives no value`);
  const t = row.nvvm.result!;
  return Array.from({ length: fragments.d.count }, (_, i) => ({
    ref: ctx.builder.compute(`extractvalue ${t} ${struct}, ${i}`),
    type: fragments.d.type,
  }));
}

/** Two f32 values rounded to `to` and packed in an i32 (the u32 of a fragment), by the row's inline PTX (intrinsics/packs.ts). */
export function lowerPack(ctx: LoweringContext, to: PackTo, lo: TypedValue, hi: TypedValue): string {
  const row = packRow(to);
  if (!row) throw new LoweringError(`unknown pack to '${to as string}'`);
  const ref = lowerAsmForm(ctx, row.nvvm, {}, [
    { type: 'float', ref: lo.ref },
    { type: 'float', ref: hi.ref },
  ]);
  if (ref === undefined) throw new LoweringError(`pack to '${to}' has an NVVM form that gives no value`);
  return ref;
}
