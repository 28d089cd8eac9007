/**
 * The shapes of an intrinsic table's row (see docs/architecture.md, "The
 * intrinsic tables"): plain data that the typer, the lowering and the
 * simulator read, so that an intrinsic is declared once. This file and the
 * tables import nothing but types, so that every stage (parse's `cuda.ts`
 * included) may read them.
 *
 * A row names the intrinsic as kernels call it (`cuda`, its path under the
 * `cuda` object) and as numba spells it (`numba`), gives the types it takes
 * and gives, its NVVM form (LLVM instructions or inline PTX, as text with
 * placeholders) and its simulator form (a JavaScript expression, as text
 * with placeholders).
 */
import type { ScalarName } from '../typing/jit-types.js';

/** The 32- and 64-bit integers: what bit functions and integer atomics take. */
export const INTEGERS: readonly ScalarName[] = Object.freeze(['i32', 'u32', 'i64', 'u64']);

/**
 * LLVM instructions, one a line, with placeholders: `$0`, `$1`, … the
 * operands' values; `$t` the operand's LLVM type (`i32`, `float`, …); a
 * family's own (`$old`, `$value`, `$compare` for atomics' formulas).
 * `%name = …` binds a fresh value (a line without a binding is emitted as
 * it is); later lines name it `%name`. The form's value is the last line's
 * binding. A `call … @name(type value, …)` declares `@name` in the module
 * from the call's own types, so `llvm.*` and `llvm.nvvm.*` intrinsics need
 * no declaration of their own.
 */
export interface LlvmForm {
  readonly llvm: readonly string[];
}

/**
 * Inline PTX (`call <result> asm sideeffect "<ptx>", "<constraints>"(…)`):
 * `ptx` names its operands `$0`, `$1`, … (outputs first), and the family's
 * placeholders (`$space`, `$type`: a `$` and a name) are filled before;
 * `constraints` is LLVM's string (`=r` a 32-bit output, `=l` 64-bit, `=h`
 * 16-bit, `r`/`l`/`h` inputs, digits tie an output to an input, `~{memory}`
 * a clobber). `result` is the LLVM type of the output, absent for an
 * instruction that gives nothing. Volatile (side effects) unless
 * `sideEffect` is false; `convergent` for what depends on which threads run
 * it together (`activemask`). This is the form of the tensor-core
 * intrinsics (mma.sync, ldmatrix, cp.async), which NVVM IR below Blackwell
 * has no intrinsic for.
 */
export interface AsmForm {
  readonly ptx: string;
  readonly constraints: string;
  readonly result?: string;
  readonly sideEffect?: boolean;
  readonly convergent?: boolean;
}

export type NvvmForm = LlvmForm | AsmForm;

/**
 * A JavaScript expression with `$0`, `$1`, … for the operands' generated
 * code (i64 and u64 as bigints, the other scalars as numbers or booleans)
 * that gives the result in the same representation; it may call the
 * simulator runtime's helpers (`popc32`, `minNumber`, `timer`, …). One text
 * for every type, or one per operand type.
 */
export type SimulatorForm = string | Readonly<Partial<Record<ScalarName, string>>>;

/** The simulator form's text for operands of `type`, or undefined where the row has none for it. */
export function simulatorText(form: SimulatorForm, type: ScalarName): string | undefined {
  return typeof form === 'string' ? form : form[type];
}

/** Whether `form` is inline PTX. */
export function isAsmForm(form: NvvmForm): form is AsmForm {
  return 'ptx' in form;
}
