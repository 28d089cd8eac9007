// `convert` (typed-ir.ts): int→int wraps, extending by the source's
// signedness; int→float rounds to nearest; float→int truncates and
// saturates, NaN giving 0; f64→f32 rounds to nearest; anything→bool is
// `x != 0` with NaN false; bool→number is 0 or 1. The 16-bit floats go
// through f32 (half-float-lowering.ts): f16 and bf16 widen to it exactly;
// f16 is LLVM's own `half`, which every type converts to in one rounding;
// bf16 is rounded from f32, reached exactly or rounded to odd.
import { bitsOf, isFloat, isHalf, isSigned, type ScalarName } from '../typing/jit-types.js';
import { floatRoundedToOdd, narrowFromFloat, widenToFloat } from './half-float-lowering.js';
import { floatLiteral, integerLiteral, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';

export function lowerConversion(ctx: LoweringContext, value: TypedValue, to: ScalarName): TypedValue {
  const from = value.type;
  if (from === to) return value;
  const b = ctx.builder;
  const fromType = registerType(from);
  const toType = registerType(to);
  const result = (ref: string): TypedValue => ({ ref, type: to });

  if (to === 'bool') return result(truthy(ctx, value).ref);
  if (isHalf(from)) return lowerConversion(ctx, { ref: widenToFloat(ctx, value), type: 'f32' }, to);
  if (to === 'bf16') return result(toBfloat16(ctx, value));
  if (from === 'bool') {
    // i1 true is 1 unsigned: zext and uitofp give 0 or 1.
    return result(b.compute(`${isFloat(to) ? 'uitofp' : 'zext'} i1 ${value.ref} to ${toType}`));
  }
  if (isFloat(from) && isFloat(to)) {
    return result(
      b.compute(`${bitsOf(to) > bitsOf(from) ? 'fpext' : 'fptrunc'} ${fromType} ${value.ref} to ${toType}`),
    );
  }
  if (isFloat(to)) {
    // LLVM's sitofp/uitofp round to nearest (cvt.rn), in one rounding even from 64 bits.
    return result(b.compute(`${isSigned(from) ? 'sitofp' : 'uitofp'} ${fromType} ${value.ref} to ${toType}`));
  }
  if (isFloat(from)) return result(floatToInteger(ctx, value, to));
  const fromBits = bitsOf(from);
  const toBits = bitsOf(to);
  if (fromBits === toBits) return result(value.ref); // i32 ↔ u32: the same bits
  if (toBits < fromBits) return result(b.compute(`trunc ${fromType} ${value.ref} to ${toType}`));
  return result(b.compute(`${isSigned(from) ? 'sext' : 'zext'} ${fromType} ${value.ref} to ${toType}`));
}

/** A value of a type other than bf16 as a bf16: one rounding of the exact value (f32's range holds every other type's). */
function toBfloat16(ctx: LoweringContext, value: TypedValue): string {
  const t = value.type;
  const exactInFloat = t === 'f32' || t === 'bool' || bitsOf(t) <= 16; // bool and the 8- and 16-bit integers
  const float = exactInFloat ? lowerConversion(ctx, value, 'f32').ref : floatRoundedToOdd(ctx, value);
  return narrowFromFloat(ctx, float, 'bf16');
}

/** `x != 0` as an i1: the truthiness of `logical`, `if` and `loop` tests; NaN is false. */
export function truthy(ctx: LoweringContext, value: TypedValue): TypedValue {
  if (value.type === 'bool') return value;
  if (value.type === 'bf16') return truthy(ctx, { ref: widenToFloat(ctx, value), type: 'f32' });
  const t = registerType(value.type);
  const ref = isFloat(value.type)
    ? ctx.builder.compute(`fcmp one ${t} ${value.ref}, ${floatLiteral(0, value.type as 'f16' | 'f32' | 'f64')}`)
    : ctx.builder.compute(`icmp ne ${t} ${value.ref}, 0`);
  return { ref, type: 'bool' };
}

// LLVM's fptosi/fptoui give poison out of range, so they are not used: the
// NVVM intrinsics are PTX's cvt.rzi, which truncates and saturates at the
// target's range. NaN does not give 0 there on the H200 (it gives the
// type's minimum), so a NaN is replaced by 0 before the conversion.
const SATURATING_INTRINSICS: Readonly<Record<string, string>> = {
  'f32:i32': 'llvm.nvvm.f2i.rz',
  'f32:u32': 'llvm.nvvm.f2ui.rz',
  'f32:i64': 'llvm.nvvm.f2ll.rz',
  'f32:u64': 'llvm.nvvm.f2ull.rz',
  'f64:i32': 'llvm.nvvm.d2i.rz',
  'f64:u32': 'llvm.nvvm.d2ui.rz',
  'f64:i64': 'llvm.nvvm.d2ll.rz',
  'f64:u64': 'llvm.nvvm.d2ull.rz',
};

function floatToInteger(ctx: LoweringContext, given: TypedValue, to: ScalarName): string {
  const b = ctx.builder;
  const fromType = registerType(given.type);
  const isNan = b.compute(`fcmp uno ${fromType} ${given.ref}, ${given.ref}`);
  const value: TypedValue = {
    ref: b.compute(`select i1 ${isNan}, ${fromType} 0.0, ${fromType} ${given.ref}`),
    type: given.type,
  };
  const toBits = bitsOf(to);
  if (toBits >= 32) {
    const name = SATURATING_INTRINSICS[`${value.type}:${to}`]!;
    const fn = ctx.declarations.declare(name, registerType(to), [fromType]);
    return b.compute(`call ${registerType(to)} ${fn}(${fromType} ${value.ref})`);
  }
  // 8 and 16 bits: saturate to i32 first (order-preserving, NaN already 0),
  // then clamp to the narrow range and truncate.
  const fn = ctx.declarations.declare(SATURATING_INTRINSICS[`${value.type}:i32`]!, 'i32', [fromType]);
  const wide = b.compute(`call i32 ${fn}(${fromType} ${value.ref})`);
  const signed = isSigned(to);
  const low = signed ? -(2 ** (toBits - 1)) : 0;
  const high = signed ? 2 ** (toBits - 1) - 1 : 2 ** toBits - 1;
  const below = b.compute(`icmp slt i32 ${wide}, ${integerLiteral(low, 32)}`);
  const raised = b.compute(`select i1 ${below}, i32 ${integerLiteral(low, 32)}, i32 ${wide}`);
  const above = b.compute(`icmp sgt i32 ${raised}, ${integerLiteral(high, 32)}`);
  const clamped = b.compute(`select i1 ${above}, i32 ${integerLiteral(high, 32)}, i32 ${raised}`);
  return b.compute(`trunc i32 ${clamped} to ${registerType(to)}`);
}
