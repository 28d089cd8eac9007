import type { ScalarName } from '../typing/jit-types.js';
import { MATH_FUNCTIONS, type MathFunction } from '../typing/typed-ir.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';

/** fma of each float type, in one rounding. */
const FMA: Readonly<Record<'f16' | 'bf16' | 'f32' | 'f64', string>> = {
  f16: 'fmaFloat16',
  bf16: 'fmaBfloat16',
  f32: 'fmaFloat32',
  f64: 'fmaFloat64',
};

/**
 * Source for a math call. Float functions go through `Math.*` (rounded with
 * `Math.fround` for f32: exact for sqrt, floor, ceil and trunc, within an
 * ulp of libdevice for the transcendental ones; for f16 and bf16 the f32
 * result rounded to the type, as the GPU computes them); min, max, round,
 * sign and abs follow typed-ir.ts's formulas; fma rounds once.
 */
export function mathSource(
  fn: MathFunction,
  type: ScalarName,
  argType: ScalarName,
  args: readonly GeneratedValue[],
): GeneratedValue {
  const half = argType === 'f16' || argType === 'bf16';
  const inF32 = argType === 'f32' || half;
  const float = inF32 || argType === 'f64';
  const big = argType === 'i64' || argType === 'u64';
  const list = args.map((a) => (big ? bigintCode(a) : a.code)).join(', ');
  const out = (code: string): GeneratedValue => ({ code, type });
  const toHalf = argType === 'f16' ? 'roundToFloat16' : 'roundToBfloat16';
  const rounded = (code: string): GeneratedValue =>
    out(half ? `${toHalf}(Math.fround(${code}))` : inF32 ? `Math.fround(${code})` : code);
  if (MATH_FUNCTIONS[fn].jsMath) return rounded(`Math.${fn}(${list})`);
  switch (fn) {
    case 'exp2':
      return rounded(`Math.pow(2, ${list})`);
    case 'round':
      return rounded(`roundHalfUp(${list})`);
    case 'fma':
      return out(`${FMA[argType as 'f16' | 'bf16' | 'f32' | 'f64']}(${list})`);
    case 'isnan':
      return out(`Number.isNaN(${list})`);
    case 'isfinite':
      return out(`Number.isFinite(${list})`);
    case 'abs':
      if (float) return out(`Math.abs(${list})`); // clears the sign bit
      if (argType === 'i32') return out(`absI32(${list})`);
      if (argType === 'i64') return out(`absI64(${list})`);
      return out(list); // unsigned: already non-negative
    case 'sign':
      return out(big ? `signBigint(${list})` : `signNumber(${list})`);
    case 'min':
      return out(big ? `minBigint(${list})` : `minNumber(${list})`);
    case 'max':
      return out(big ? `maxBigint(${list})` : `maxNumber(${list})`);
    default:
      throw new Error(`simulator: unknown math function '${String(fn)}'`);
  }
}
