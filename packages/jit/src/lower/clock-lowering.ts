// The timers and nanosleep, as inline PTX, volatile as CUDA's clock64() and
// __nanosleep are: each read happens where it is written (the
// `llvm.nvvm.read.ptx.sreg.clock64` intrinsic may be moved by the optimizer).
import { asmStatement, asmValue } from './inline-asm.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** `clock64` (`%clock64`, the SM's cycle counter) or `globaltimer` (`%globaltimer`, nanoseconds), u64. */
export function lowerTimer(ctx: LoweringContext, which: 'clock64' | 'globaltimer'): TypedValue {
  if (which !== 'clock64' && which !== 'globaltimer') throw new LoweringError(`unknown timer '${which as string}'`);
  return { ref: asmValue(ctx, 'i64', { template: `mov.u64 $0, %${which};`, constraints: '=l' }), type: 'u64' };
}

/** `nanosleep.u32` (sm_70 and later) for about `nanoseconds` (u32). */
export function lowerSleep(ctx: LoweringContext, nanoseconds: TypedValue): void {
  if (nanoseconds.type !== 'u32') throw new LoweringError(`sleep of type ${nanoseconds.type}; it takes u32`);
  asmStatement(ctx, { template: 'nanosleep.u32 $0;', constraints: 'r,~{memory}', operands: [{ type: 'i32', ref: nanoseconds.ref }] });
}
