// The 16-bit floats in NVVM IR, and their way to and from f32:
// - f16 is LLVM's `half`. libNVVM adds, subtracts, multiplies and compares
//   it natively (add.f16, setp.lt.f16), divides it through f32 (div.rn.f32,
//   then cvt.rn.f16.f32: the correctly rounded quotient, since f32's 24 bits
//   are at least 2·11 + 2, which makes rounding twice innocuous), and
//   converts every type to it in one rounding (cvt.rn.f16.f64, .s64, ...).
// - bf16 has no type in LLVM 7: it is its bits in an i16. It widens to f32
//   exactly (its bits are the high half of the f32's), narrows with PTX's
//   `cvt.rn.bf16.f32` (sm_80), and computes in f32, rounded back to bf16
//   after every operation: the correctly rounded result, as 24 ≥ 2·8 + 2 and
//   the exponent range is f32's. A value wider than f32 (f64, 32- and 64-bit
//   integers) goes to f32 rounded to odd first (truncated, the last bit set
//   when anything was dropped), so that rounding that to bf16 is the one
//   rounding of the exact value (as cvt.rn.bf16.f64, which needs sm_90, does).
// Math functions other than fma compute in f32 and round back (math-lowering.ts).
import type { ScalarName } from '../typing/jit-types.js';
import { asmValue } from './inline-asm.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** The f32 (an LLVM `float` operand) with the value of an f16 or bf16: exact. */
export function widenToFloat(ctx: LoweringContext, value: TypedValue): string {
  const b = ctx.builder;
  if (value.type === 'f16') return b.compute(`fpext half ${value.ref} to float`);
  if (value.type !== 'bf16') throw new LoweringError(`widening a ${value.type} as a 16-bit float`);
  const wide = b.compute(`zext i16 ${value.ref} to i32`);
  const high = b.compute(`shl i32 ${wide}, 16`);
  return b.compute(`bitcast i32 ${high} to float`);
}

/** An f32 operand rounded to f16 or bf16 (to nearest even, subnormals kept, overflow to infinity). */
export function narrowFromFloat(ctx: LoweringContext, ref: string, to: 'f16' | 'bf16'): string {
  if (to === 'f16') return ctx.builder.compute(`fptrunc float ${ref} to half`);
  return asmValue(ctx, 'i16', {
    template: 'cvt.rn.bf16.f32 $0, $1;',
    constraints: '=h,f',
    operands: [{ type: 'float', ref }],
    sideEffect: false,
  });
}

/** What `value` (f64, or an integer of 32 or 64 bits) truncates to in f32, and the PTX conversion back that tells whether that was exact. */
const TRUNCATIONS: Readonly<
  Partial<Record<ScalarName, { readonly toFloat: string; readonly back: string; readonly llvm: string }>>
> = {
  f64: { toFloat: 'llvm.nvvm.d2f.rz', back: '', llvm: 'double' },
  i64: { toFloat: 'llvm.nvvm.ll2f.rz', back: 'llvm.nvvm.f2ll.rz', llvm: 'i64' },
  u64: { toFloat: 'llvm.nvvm.ull2f.rz', back: 'llvm.nvvm.f2ull.rz', llvm: 'i64' },
};

/**
 * `value` (f64, i32, u32, i64 or u64) as an f32 rounded to odd: truncated
 * toward zero, with the lowest bit set when the truncation dropped anything.
 * Rounding that to a format of 22 bits or fewer (f16, bf16) to nearest gives
 * the correctly rounded value of `value` itself. NaN and the infinities pass.
 */
export function floatRoundedToOdd(ctx: LoweringContext, value: TypedValue): string {
  const b = ctx.builder;
  let source = value;
  if (value.type === 'i32' || value.type === 'u32') {
    // every 32-bit integer is a double
    source = {
      ref: b.compute(`${value.type === 'i32' ? 'sitofp' : 'uitofp'} i32 ${value.ref} to double`),
      type: 'f64',
    };
  }
  const truncation = TRUNCATIONS[source.type];
  if (!truncation) throw new LoweringError(`rounding a ${value.type} to odd`);
  const t = truncation.llvm;
  const truncated = b.compute(
    `call float ${ctx.declarations.declare(truncation.toFloat, 'float', [t])}(${t} ${source.ref})`,
  );
  let inexact: string;
  if (source.type === 'f64') {
    const back = b.compute(`fpext float ${truncated} to double`);
    inexact = b.compute(`fcmp one double ${back}, ${source.ref}`); // ordered: a NaN stays itself
  } else {
    // the truncation of a 64-bit integer is within its range: converting back is exact
    const back = b.compute(
      `call i64 ${ctx.declarations.declare(truncation.back, 'i64', ['float'])}(float ${truncated})`,
    );
    inexact = b.compute(`icmp ne i64 ${back}, ${source.ref}`);
  }
  const bits = b.compute(`bitcast float ${truncated} to i32`);
  const sticky = b.compute(`zext i1 ${inexact} to i32`);
  const odd = b.compute(`or i32 ${bits}, ${sticky}`);
  return b.compute(`bitcast i32 ${odd} to float`);
}
