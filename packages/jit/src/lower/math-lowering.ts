// The `math` calls of typed-ir.ts's MATH_FUNCTIONS: float functions through
// libdevice (`__nv_sinf` for f32, `__nv_sin` for f64, linked by libNVVM),
// and min/max/round/sign/abs/isnan/isfinite by the formulas written there,
// so that the GPU and the simulator agree bit for bit where they can.
// On f16 and bf16: fma is PTX's own (fma.rn.f16, fma.rn.bf16: one
// rounding); every other function is the f32 one rounded back to the type.
import { isFloat, isHalf, isSigned, type ScalarName } from '../typing/jit-types.js';
import { MATH_FUNCTIONS, type MathFunction } from '../typing/typed-ir.js';
import { compareRefs } from './arithmetic-lowering.js';
import { narrowFromFloat, widenToFloat } from './half-float-lowering.js';
import { asmValue } from './inline-asm.js';
import { libdeviceFunction } from './libdevice-function.js';
import { constantLiteral, floatLiteral, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/**
 * The f32 functions that numba's `fastmath=True` computes with libdevice's
 * fast approximate forms (`__nv_fast_<fn>f`), whose errors libdevice
 * documents: sin and cos within 2^-21.41 absolute on [-π, π], exp within
 * 2 + floor(|1.173·x|) ulp, log within 2^-21.41 absolute on [0.5, 2] and
 * 3 ulp elsewhere, log2 2^-22 and 2 ulp, log10 2^-24 and 3 ulp; tan is
 * sin/cos and pow is exp2(y·log2(x)), with their errors compounded.
 */
export const FAST_MATH_FUNCTIONS: ReadonlySet<MathFunction> = new Set<MathFunction>([
  'sin',
  'cos',
  'tan',
  'exp',
  'log',
  'log2',
  'log10',
  'pow',
]);

function callLibdevice(ctx: LoweringContext, base: string, type: ScalarName, args: readonly string[]): string {
  const fn = libdeviceFunction(ctx, base, type, args.length);
  const t = registerType(type);
  return ctx.builder.compute(`call ${t} ${fn}(${args.map((a) => `${t} ${a}`).join(', ')})`);
}

function fabs(ctx: LoweringContext, type: ScalarName, x: string): string {
  // libdevice's fabs is PTX abs, which clears the sign bit (libNVVM refuses LLVM's own llvm.fabs).
  return callLibdevice(ctx, 'fabs', type, [x]);
}

export function lowerMath(
  ctx: LoweringContext,
  fn: MathFunction,
  argType: ScalarName,
  args: readonly TypedValue[],
): TypedValue {
  const spec = MATH_FUNCTIONS[fn];
  if (!spec) throw new LoweringError(`unknown math function '${fn}'`);
  if (args.length !== spec.arity)
    throw new LoweringError(`math '${fn}' with ${args.length} arguments; it takes ${spec.arity}`);
  if (!isFloat(argType) && !(spec.int && argType !== 'bool')) throw new LoweringError(`math '${fn}' on ${argType}`);
  for (const a of args) if (a.type !== argType) throw new LoweringError(`math '${fn}' of ${argType} given a ${a.type}`);
  if (isHalf(argType)) return halfMath(ctx, fn, argType, args);
  const refs = args.map((a) => a.ref);
  const b = ctx.builder;
  const t = registerType(argType);
  const x = refs[0]!;
  const same = (ref: string): TypedValue => ({ ref, type: argType });
  const one = constantLiteral(argType, 1);
  const zero = constantLiteral(argType, 0);

  if (ctx.fastMath && argType === 'f32' && FAST_MATH_FUNCTIONS.has(fn))
    return same(callLibdevice(ctx, `fast_${fn}`, argType, refs));
  if (MATH_FUNCTIONS[fn].libdevice) return same(callLibdevice(ctx, fn, argType, refs));
  switch (fn) {
    case 'isnan':
      return { ref: b.compute(`fcmp uno ${t} ${x}, ${x}`), type: 'bool' };
    case 'isfinite': {
      // |x| < ∞ is false for both infinities and, being ordered, for NaN.
      const magnitude = fabs(ctx, argType, x);
      return {
        ref: b.compute(`fcmp olt ${t} ${magnitude}, ${floatLiteral(Infinity, argType as 'f32' | 'f64')}`),
        type: 'bool',
      };
    }
    case 'round': {
      // floor(x) + ((x - floor(x)) >= 0.5 ? 1 : 0), each op rounded to the type.
      const floor = callLibdevice(ctx, 'floor', argType, [x]);
      const fraction = b.compute(`fsub ${t} ${x}, ${floor}`);
      const up = b.compute(`fcmp oge ${t} ${fraction}, ${constantLiteral(argType, 0.5)}`);
      const step = b.compute(`select i1 ${up}, ${t} ${one}, ${t} ${zero}`);
      return same(b.compute(`fadd ${t} ${floor}, ${step}`));
    }
    case 'abs': {
      if (isFloat(argType)) return same(fabs(ctx, argType, x));
      if (!isSigned(argType)) return same(x);
      const negative = b.compute(`icmp slt ${t} ${x}, 0`);
      const negated = b.compute(`sub ${t} 0, ${x}`); // wraps: abs(MIN) is MIN
      return same(b.compute(`select i1 ${negative}, ${t} ${negated}, ${t} ${x}`));
    }
    case 'sign': {
      // x > 0 ? 1 : x < 0 ? -1 : x (keeps NaN and ±0).
      const positive = compareRefs(ctx, 'gt', argType, x, zero);
      let rest = x;
      if (isFloat(argType) || isSigned(argType)) {
        const negative = compareRefs(ctx, 'lt', argType, x, zero);
        rest = b.compute(`select i1 ${negative}, ${t} ${constantLiteral(argType, -1)}, ${t} ${x}`);
      }
      return same(b.compute(`select i1 ${positive}, ${t} ${one}, ${t} ${rest}`));
    }
    case 'min':
    case 'max': {
      // (a < b || a != a) ? a : b, and with > for max: NaN wins as in JavaScript.
      const y = refs[1]!;
      let pick = compareRefs(ctx, fn === 'min' ? 'lt' : 'gt', argType, x, y);
      if (isFloat(argType)) {
        const unordered = b.compute(`fcmp uno ${t} ${x}, ${x}`);
        pick = b.compute(`or i1 ${pick}, ${unordered}`);
      }
      return same(b.compute(`select i1 ${pick}, ${t} ${x}, ${t} ${y}`));
    }
  }
  throw new LoweringError(`math '${fn}' has no lowering`);
}

/** A math function of f16 or bf16 arguments: fma in one rounding, the others in f32, rounded back (isnan and isfinite give bools). */
function halfMath(
  ctx: LoweringContext,
  fn: MathFunction,
  type: 'f16' | 'bf16',
  args: readonly TypedValue[],
): TypedValue {
  if (fn === 'fma') {
    // f32's fma would round twice: a*b+c needs more than 24 bits
    const [a, b, c] = args.map((x) => x.ref) as [string, string, string];
    if (type === 'f16')
      return {
        ref: ctx.builder.compute(
          `call half ${ctx.declarations.declare('llvm.fma.f16', 'half', ['half', 'half', 'half'])}(half ${a}, half ${b}, half ${c})`,
        ),
        type,
      };
    const operands = [a, b, c].map((ref) => ({ type: 'i16', ref }));
    return {
      ref: asmValue(ctx, 'i16', {
        template: 'fma.rn.bf16 $0, $1, $2, $3;',
        constraints: '=h,h,h,h',
        operands,
        sideEffect: false,
      }),
      type,
    };
  }
  const wide = lowerMath(
    ctx,
    fn,
    'f32',
    args.map((x) => ({ ref: widenToFloat(ctx, x), type: 'f32' })),
  );
  return wide.type === 'bool' ? wide : { ref: narrowFromFloat(ctx, wide.ref, type), type };
}
