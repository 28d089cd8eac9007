/**
 * Printing from threads: `cuda.printf(format, ...args)` (C's printf, its
 * conversions checked against the arguments' types) and `console.log(...)`
 * (a format made from the arguments' types). Both become a `print`
 * statement whose arguments are i32, u32, i64, u64 or f64 (typed-ir.ts).
 *
 * console.log prints as JavaScript does where it can: text and constants go
 * into the format as JavaScript writes them (`%` doubled), values are
 * separated by spaces and the line ends in `\n`. Values print with `%d`,
 * `%u`, `%lld` and `%llu` for integers, `%.15g` for f64, `%.7g` for f32, `%.4g` for f16 and `%.3g` for bf16
 * (the digits each type holds, so `0.1` prints as 0.1), and bools as 1 or 0.
 */
import type { ESTree } from 'meriyah';
import { isFloat, type ScalarName } from './jit-types.js';
import type { Expr, Stmt } from './typed-ir.js';
import {
  isLiteralType,
  literalValue,
  stringLiteral,
  type Node,
  type Typed,
  type TyperContext,
} from './typer-context.js';

/** vprintf's limit: 32 arguments besides the format. */
const MAX_ARGS = 32;

type ConversionClass = 'int32' | 'int64' | 'float';

interface Conversion {
  /** As written, for messages (`%5.2f`). */
  readonly text: string;
  readonly kind: ConversionClass;
  /** d, i and c take signed values; u, x, X and o unsigned. */
  readonly signed: boolean;
}

const CONVERSION = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L|q)?(.?)/gs;

/** The conversions of a printf format, in order; `%%` is none. */
function conversions(c: TyperContext, format: string, node: Node): Conversion[] {
  const out: Conversion[] = [];
  for (const m of format.matchAll(CONVERSION)) {
    const [text, , width, precision, length, letter] = m as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
      string | undefined,
      string,
    ];
    if (letter === '%' && text === '%%') continue;
    if (width === '*' || precision === '*')
      c.typeError(
        node,
        `printf: '*' widths and precisions (${text}) are not supported; write the number into the format`,
      );
    if (letter === '') c.typeError(node, `printf: the format ends in an unfinished conversion '${text}'`);
    if (letter === 's')
      c.typeError(
        node,
        'printf: %s is not supported (strings are no values in kernels); write the text into the format',
      );
    if (letter === 'p' || letter === 'n') c.typeError(node, `printf: %${letter} is not supported in kernels`);
    if (length === 'L' || length === 'q')
      c.typeError(
        node,
        `printf: the length '${length}' (${text}) is not supported; use %f for floats, %lld for 64-bit integers`,
      );
    if ('diouxXc'.includes(letter)) {
      const wide = length === 'l' || length === 'll' || length === 'j' || length === 'z' || length === 't';
      out.push({ text, kind: wide ? 'int64' : 'int32', signed: letter === 'd' || letter === 'i' || letter === 'c' });
    } else if ('fFeEgGaA'.includes(letter)) {
      if (length !== undefined && length !== 'l')
        c.typeError(node, `printf: '${text}' is not a float conversion C knows`);
      out.push({ text, kind: 'float', signed: true });
    } else {
      c.typeError(
        node,
        `printf: '${text}' is not a conversion printf has (d, i, u, x, X, o, c, f, F, e, E, g, G, a, A)`,
      );
    }
  }
  return out;
}

/** What to write instead of `conversion` for a value of type `t`. */
function suggestion(t: ScalarName): string {
  if (isFloat(t)) return '%f';
  return t === 'i64' ? '%lld' : t === 'u64' ? '%llu' : t === 'u32' ? '%u' : '%d';
}

/** The argument of a conversion, of the type the conversion reads. */
function printfArgument(c: TyperContext, conversion: Conversion, node: Node): Expr {
  if (stringLiteral(node) !== undefined)
    c.typeError(node, 'printf: strings are no values in kernels; write the text into the format');
  const v = c.expression(node);
  const value = literalValue(v);
  const where = `printf: ${conversion.text}`;
  if (conversion.kind === 'float') {
    if (isLiteralType(v.type) || isFloat(v.type)) return c.to(v, 'f64', node);
    return c.typeError(
      node,
      `${where} prints a float, the argument is ${v.type}: write ${suggestion(v.type)}, or convert it: cuda.f64(x)`,
    );
  }
  if (v.type === 'float-literal' || (!isLiteralType(v.type) && isFloat(v.type))) {
    return c.typeError(
      node,
      `${where} prints an integer, the argument is ${v.type === 'float-literal' ? 'a float literal' : v.type}: write %f, or convert it: cuda.i32(x)`,
    );
  }
  if (conversion.kind === 'int32') {
    if (v.type === 'int-literal') {
      const fits = value === undefined || (value >= -(2 ** 31) && value < 2 ** 32);
      if (!fits) c.typeError(node, `${where} prints a 32-bit integer, ${value} needs 64 bits: write %lld`);
      return c.to(v, conversion.signed || (value ?? 0) < 0 ? 'i32' : 'u32', node);
    }
    if (v.type === 'i64' || v.type === 'u64')
      return c.typeError(
        node,
        `${where} prints a 32-bit integer, the argument is ${v.type}: write ${suggestion(v.type)}`,
      );
    return c.to(v, v.type === 'u32' ? 'u32' : 'i32', node);
  }
  // 64-bit conversions: narrower integers are widened (by their own signedness)
  if (v.type === 'int-literal') return c.to(v, conversion.signed || (value ?? 0) < 0 ? 'i64' : 'u64', node);
  return c.to(v, v.type === 'u64' || v.type === 'u32' || v.type === 'u16' || v.type === 'u8' ? 'u64' : 'i64', node);
}

/** `cuda.printf(format, ...args)`: the format a string literal whose conversions fit the arguments. */
export function printfCall(c: TyperContext, args: readonly Node[], call: ESTree.CallExpression): Stmt {
  const [formatNode, ...rest] = args as [Node, ...Node[]];
  const format = stringLiteral(formatNode);
  if (format === undefined)
    return c.typeError(formatNode, "cuda.printf's format is a string literal: cuda.printf('%d\\n', i)");
  if (rest.length > MAX_ARGS)
    c.typeError(call, `cuda.printf takes at most ${MAX_ARGS} arguments after the format, ${rest.length} given`);
  const wanted = conversions(c, format, formatNode);
  if (wanted.length !== rest.length) {
    c.typeError(
      rest.length > wanted.length ? rest[wanted.length]! : call,
      `printf: the format has ${wanted.length} conversion(s), ${rest.length} argument(s) given`,
    );
  }
  return { op: 'print', format, args: rest.map((node, i) => printfArgument(c, wanted[i]!, node)), loc: c.loc(call) };
}

/** How JavaScript writes a number: `-0`, `1e+21`, `0.1`. */
const jsText = (value: number): string => (Object.is(value, -0) ? '-0' : String(value));

const escapePercent = (text: string): string => text.replaceAll('%', '%%');

/** One console.log argument: text for the format, or a conversion and its value. */
function logPart(c: TyperContext, node: Node): { text: string; arg?: Expr } {
  const text = stringLiteral(node);
  if (text !== undefined) return { text: escapePercent(text) };
  const v: Typed = c.expression(node);
  const value = literalValue(v);
  if (value !== undefined) return { text: jsText(value) };
  if (v.expr.op === 'const' && v.type === 'bool') return { text: String(v.expr.value) };
  const t = c.concrete(v);
  switch (t) {
    case 'f64':
      return { text: '%.15g', arg: c.to(v, 'f64', node) };
    case 'f32':
      return { text: '%.7g', arg: c.to(v, 'f64', node) };
    // as f32's 7 digits: one more than the digits each type keeps (3 for f16, 2 for bf16)
    case 'f16':
      return { text: '%.4g', arg: c.to(v, 'f64', node) };
    case 'bf16':
      return { text: '%.3g', arg: c.to(v, 'f64', node) };
    case 'i64':
      return { text: '%lld', arg: c.to(v, 'i64', node) };
    case 'u64':
      return { text: '%llu', arg: c.to(v, 'u64', node) };
    case 'u32':
      return { text: '%u', arg: c.to(v, 'u32', node) };
    default:
      return { text: '%d', arg: c.to(v, 'i32', node) };
  }
}

/** `console.log(a, b, ...)`: one line, its format made from the arguments' types. */
export function consoleLogCall(c: TyperContext, args: readonly Node[], call: ESTree.CallExpression): Stmt {
  const parts = args.map((node) => logPart(c, node));
  const values = parts.flatMap((p) => (p.arg ? [p.arg] : []));
  if (values.length > MAX_ARGS)
    c.typeError(call, `console.log in kernels prints at most ${MAX_ARGS} values at once, ${values.length} given`);
  return { op: 'print', format: `${parts.map((p) => p.text).join(' ')}\n`, args: values, loc: c.loc(call) };
}
