// Inline PTX, for what NVVM has no intrinsic for (activemask, the timers,
// nanosleep, %dynamic_smem_size, the grid barrier's acquire/release
// accesses): `call <type> asm [sideeffect] "<template>", "<constraints>"(args)`.
import type { LoweringContext } from './lowering-context.js';

export interface AsmOperand {
  /** The operand's LLVM type. */
  readonly type: string;
  readonly ref: string;
}

export interface InlineAsm {
  /** PTX with `$0`, `$1`, … for the operands (outputs first). */
  readonly template: string;
  /** LLVM's constraint string: `=r` (32-bit out), `=l` (64-bit out), `r`, `l`, `~{memory}`, comma-separated. */
  readonly constraints: string;
  readonly operands?: readonly AsmOperand[];
  /**
   * Whether the instruction has effects or reads state that changes (volatile, `asm volatile` in CUDA C):
   * then the optimizer neither deletes, merges nor moves it. Default true.
   */
  readonly sideEffect?: boolean;
  /** What the instruction reads depends on which threads run it together (`activemask`): the optimizer must not move it across control flow. */
  readonly convergent?: boolean;
}

function asmText(asm: InlineAsm): string {
  const quoted = (s: string): string =>
    s.replace(/[\\"]/g, (c) => `\\${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const operands = (asm.operands ?? []).map((o) => `${o.type} ${o.ref}`).join(', ');
  return `asm ${asm.sideEffect === false ? '' : 'sideeffect '}"${quoted(asm.template)}", "${quoted(asm.constraints)}"(${operands})${asm.convergent ? ' convergent' : ''}`;
}

/** Emits inline PTX with one result of `resultType` and returns it. */
export function asmValue(ctx: LoweringContext, resultType: string, asm: InlineAsm): string {
  return ctx.builder.compute(`call ${resultType} ${asmText(asm)}`);
}

/** Emits inline PTX without a result. */
export function asmStatement(ctx: LoweringContext, asm: InlineAsm): void {
  ctx.builder.emit(`call void ${asmText(asm)}`);
}
