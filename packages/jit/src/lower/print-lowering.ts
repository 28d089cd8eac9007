// `print` through CUDA's vprintf(format, args): the format is a constant
// string of the module (addrspace(4), cast to a generic i8*), the arguments
// a struct in a per-thread alloca, each field at its natural alignment
// (i32 at 4 bytes, i64 and f64 at 8), which is the layout vprintf reads.
import type { ScalarName } from '../typing/jit-types.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** What vprintf takes (the typer converts f32 to f64 and bool to i32, as C's variadic calls do). */
const PRINT_TYPES: ReadonlySet<ScalarName> = new Set<ScalarName>(['i32', 'u32', 'i64', 'u64', 'f64']);

export function lowerPrint(ctx: LoweringContext, format: string, args: readonly TypedValue[]): void {
  const b = ctx.builder;
  for (const a of args)
    if (!PRINT_TYPES.has(a.type))
      throw new LoweringError(`print argument of type ${a.type}; vprintf takes i32, u32, i64, u64 and f64`);
  const vprintf = ctx.declarations.declare('vprintf', 'i32', ['i8*', 'i8*']);
  const bytes = [...new TextEncoder().encode(format), 0];
  const stringType = `[${bytes.length} x i8]`;
  const symbol = ctx.declarations.defineGlobal(
    ctx.declarations.freshGlobalName('printf$'),
    `internal addrspace(4) constant ${stringType} c"${cString(bytes)}", align 1`,
  );
  const formatPointer = b.compute(
    `addrspacecast i8 addrspace(4)* getelementptr inbounds (${stringType}, ${stringType} addrspace(4)* ${symbol}, i64 0, i64 0) to i8*`,
  );
  let argsPointer = 'null';
  if (args.length > 0) {
    const struct = `{ ${args.map((a) => registerType(a.type)).join(', ')} }`;
    const slot = b.newValue('printf.args.');
    b.emitInEntry(`${slot} = alloca ${struct}, align 8`);
    for (const [k, a] of args.entries()) {
      const t = registerType(a.type);
      const field = b.compute(`getelementptr inbounds ${struct}, ${struct}* ${slot}, i32 0, i32 ${k}`);
      b.emit(`store ${t} ${a.ref}, ${t}* ${field}, align ${t === 'i32' ? 4 : 8}`);
    }
    argsPointer = b.compute(`bitcast ${struct}* ${slot} to i8*`);
  }
  b.compute(`call i32 ${vprintf}(i8* ${formatPointer}, i8* ${argsPointer})`);
}

/** Bytes as the body of an LLVM `c"…"` string: printable ASCII as it is, the rest (and `"`, `\`) as `\XX`. */
function cString(bytes: readonly number[]): string {
  return bytes
    .map((c) =>
      c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c
        ? String.fromCharCode(c)
        : `\\${c.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}
