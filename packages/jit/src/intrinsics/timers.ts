/**
 * The timers: `cuda.<name>()`, a u64 counter read where it is written
 * (volatile inline PTX: NVVM's `llvm.nvvm.read.ptx.sreg.clock64` may be
 * moved by the optimizer), typed-ir.ts's `timer` node. The simulator form
 * calls the runtime's `timer()` (nanoseconds of the host). One row declares a
 * timer for every stage: the `cuda` stub and its type (its doc comment is the
 * row's), the typing rule, the lowering and the simulator.
 */
import type { AsmForm, SimulatorForm } from './forms.js';

export interface TimerRow {
  /** numba's spelling, where numba has it. */
  readonly numba?: string;
  readonly nvvm: AsmForm;
  readonly simulator: SimulatorForm;
}

export const TIMERS = Object.freeze({
  /** The SM's cycle counter (`%clock64`, CUDA's `clock64()`); the simulator counts nanoseconds. */
  clock64: {
    nvvm: { ptx: 'mov.u64 $0, %clock64;', constraints: '=l', result: 'i64' },
    simulator: 'timer()',
  },
  /** Nanoseconds of the GPU's global timer (`%globaltimer`). */
  globaltimer: {
    nvvm: { ptx: 'mov.u64 $0, %globaltimer;', constraints: '=l', result: 'i64' },
    simulator: 'timer()',
  },
} as const satisfies Record<string, TimerRow>);

export type TimerName = keyof typeof TIMERS;

/** The row of timer `which`, or undefined for a name that is none. */
export function timerRow(which: string): TimerRow | undefined {
  return Object.hasOwn(TIMERS, which) ? (TIMERS as Readonly<Record<string, TimerRow>>)[which] : undefined;
}
