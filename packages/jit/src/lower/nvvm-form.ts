// The NVVM form of an intrinsic table's row (intrinsics/forms.ts) made
// instructions: LLVM lines with their placeholders filled, calls declared
// from their own types, or inline PTX. The families' lowerings
// (bits-lowering.ts, atomic-lowering.ts, …) choose the row and its operands;
// this file knows no intrinsic by name.
import { type AsmForm, isAsmForm, type LlvmForm, type NvvmForm } from '../intrinsics/forms.js';
import { asmStatement, asmValue, type AsmOperand } from './inline-asm.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** What the placeholders stand for: `0`, `1`, … the operands' refs, `t` a type, and a family's own names. */
export type Placeholders = Readonly<Record<string, string>>;

/** `$name` (and `$0`, `$1`, … unless `namesOnly`: inline PTX's `$0` are its operands) replaced by `values[name]`. */
export function fillPlaceholders(text: string, values: Placeholders, namesOnly = false): string {
  const pattern = namesOnly ? /\$([A-Za-z]\w*)/g : /\$(\d+|[A-Za-z]\w*)/g;
  return text.replace(pattern, (whole, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new LoweringError(`intrinsic form '${text}' names ${whole}, which this use does not give`);
    return value;
  });
}

const CALL = /\bcall (.+?) @([A-Za-z_.$][\w.$]*)\((.*)\)$/;

/** Declares the function that a `call <type> @name(<type> <value>, …)` line calls, with the call's own types. */
function declareCalled(ctx: LoweringContext, line: string): string {
  const m = CALL.exec(line);
  if (!m) return line;
  const [, returnType, name, args] = m as unknown as [string, string, string, string];
  const parameterTypes = args.trim() === '' ? [] : args.split(', ').map((a) => a.slice(0, a.lastIndexOf(' ')));
  ctx.declarations.declare(name, returnType, parameterTypes);
  return line;
}

/** Emits an LLVM form with `values` filled in, and gives its value (the last binding), or undefined where it binds none. */
export function lowerLlvmForm(ctx: LoweringContext, form: LlvmForm, values: Placeholders): string | undefined {
  const b = ctx.builder;
  const bound = new Map<string, string>();
  let last: string | undefined;
  for (const line of form.llvm) {
    const m = /^%(\w+) = (.*)$/.exec(line);
    const text = (m ? m[2]! : line).replace(/%([A-Za-z_]\w*)/g, (whole, name: string) => bound.get(name) ?? whole);
    const filled = declareCalled(ctx, fillPlaceholders(text, values));
    if (m) {
      last = b.compute(filled);
      bound.set(m[1]!, last);
    } else {
      b.emit(filled);
    }
  }
  return last;
}

/** Emits an inline-PTX form with `values` filled into its text; gives its output, or undefined for one without a result. */
export function lowerAsmForm(
  ctx: LoweringContext,
  form: AsmForm,
  values: Placeholders,
  operands: readonly AsmOperand[] = [],
): string | undefined {
  const asm = {
    template: fillPlaceholders(form.ptx, values, true),
    constraints: form.constraints,
    operands,
    ...(form.sideEffect === false ? { sideEffect: false } : {}),
    ...(form.convergent ? { convergent: true } : {}),
  };
  if (form.result === undefined) {
    asmStatement(ctx, asm);
    return undefined;
  }
  return asmValue(ctx, form.result, asm);
}

/** Either form: an LLVM one with `values`, an inline-PTX one with `values` and `operands`. */
export function lowerNvvmForm(
  ctx: LoweringContext,
  form: NvvmForm,
  values: Placeholders,
  operands: readonly AsmOperand[] = [],
): string | undefined {
  return isAsmForm(form) ? lowerAsmForm(ctx, form, values, operands) : lowerLlvmForm(ctx, form, values);
}
