import { isFloat, isHalf, type ScalarName } from '../typing/jit-types.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** Declares libdevice's `base` for `type` (`__nv_fmodf` for f32, `__nv_fmod` for f64), taking `arity` arguments of it. */
export function libdeviceFunction(ctx: LoweringContext, base: string, type: ScalarName, arity = 2): string {
  if (!isFloat(type) || isHalf(type)) throw new LoweringError(`libdevice '${base}' on ${type}`); // the 16-bit floats call the f32 functions
  const t = registerType(type);
  return ctx.declarations.declare(
    `__nv_${base}${type === 'f32' ? 'f' : ''}`,
    t,
    Array.from({ length: arity }, () => t),
  );
}
