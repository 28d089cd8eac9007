// The timers (their rows' inline PTX, intrinsics/timers.ts) and nanosleep, volatile as CUDA's clock64() and
// __nanosleep are: each read happens where it is written (the
// `llvm.nvvm.read.ptx.sreg.clock64` intrinsic may be moved by the optimizer).
import { type TimerName, timerRow } from '../intrinsics/timers.js';
import { asmStatement } from './inline-asm.js';
import { lowerAsmForm } from './nvvm-form.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** A timer of intrinsics/timers.ts (`clock64`, `globaltimer`), u64. */
export function lowerTimer(ctx: LoweringContext, which: TimerName): TypedValue {
  const row = timerRow(which);
  if (!row) throw new LoweringError(`unknown timer '${which as string}'`);
  const ref = lowerAsmForm(ctx, row.nvvm, {});
  if (ref === undefined || row.nvvm.result !== 'i64')
    throw new LoweringError(`timer '${which}' gives ${row.nvvm.result ?? 'nothing'}, not a u64`);
  return { ref, type: 'u64' };
}

/** `nanosleep.u32` (sm_70 and later) for about `nanoseconds` (u32). */
export function lowerSleep(ctx: LoweringContext, nanoseconds: TypedValue): void {
  if (nanoseconds.type !== 'u32') throw new LoweringError(`sleep of type ${nanoseconds.type}; it takes u32`);
  asmStatement(ctx, {
    template: 'nanosleep.u32 $0;',
    constraints: 'r,~{memory}',
    operands: [{ type: 'i32', ref: nanoseconds.ref }],
  });
}
