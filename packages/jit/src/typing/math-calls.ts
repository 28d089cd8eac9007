/**
 * `Math.*` and `Number.*` calls (and the math intrinsics of cuda-calls.ts):
 * math on f32 arguments stays f32 (libdevice's `f` functions), otherwise
 * f64; `min`, `max`, `abs` and `sign` of integers stay integers.
 */
import type { ESTree } from 'meriyah';
import { integerRounding, ROUNDING_FUNCTIONS, type RoundingFunction } from './integer-rounding.js';
import { MATH_CALLS } from './intrinsics.js';
import { bitsOf, isFloat, type ScalarName } from './jit-types.js';
import { arithmeticType, defaultLiteralType, promoteValues, type ValueType } from './promotion.js';
import { MATH_FUNCTIONS, type Expr, type MathFunction } from './typed-ir.js';
import { isLiteralType, typed, type Node, type Typed, type TyperContext } from './typer-context.js';

type Call = ESTree.CallExpression;

/** The float type of a math call: f32 when every argument is f32 (or a small integer, or a literal), else f64. */
export function floatType(args: readonly Typed[]): ScalarName {
  let t: ValueType = 'int-literal';
  for (const a of args) t = promoteValues(t, a.type);
  if (isLiteralType(t)) return 'f64';
  return isFloat(t) ? t : bitsOf(t) <= 16 && t !== 'bool' ? 'f32' : 'f64';
}

export function mathCall(c: TyperContext, name: string, node: Call): Typed {
  if (name === 'fround') {
    if (node.arguments.length !== 1) c.typeError(node, 'Math.fround(x) takes one value');
    return typed(c.to(c.expression(node.arguments[0]!), 'f32', node));
  }
  if (name === 'imul') {
    if (node.arguments.length !== 2) c.typeError(node, 'Math.imul(a, b) takes two values');
    // ToInt32 of each: floats truncate (a float literal folds the same way)
    const [a, b] = node.arguments.map((n) => c.to(c.expression(n), 'i32', n)) as [Expr, Expr];
    return typed({ op: 'binary', type: 'i32', operator: 'mul', left: a, right: b, loc: c.loc(node) });
  }
  const fn = MATH_CALLS[name];
  if (!fn)
    return c.typeError(
      node,
      `Math.${name} is not available in kernels; available: ${[...Object.keys(MATH_CALLS), 'fround', 'imul'].join(', ')}`,
    );
  if ((fn === 'min' || fn === 'max' || fn === 'hypot') && node.arguments.length > 2) {
    // fold left: Math.max(a, b, c) = max(max(a, b), c)
    let acc = mathOf(c, fn, node.arguments.slice(0, 2), node);
    for (const extra of node.arguments.slice(2)) acc = mathOfTyped(c, fn, [acc, c.expression(extra)], node);
    return acc;
  }
  if (ROUNDING_FUNCTIONS.has(fn) && node.arguments.length === 1) {
    const arg = node.arguments[0]!;
    const quotient = integerRounding(c, fn as RoundingFunction, arg, node);
    if (quotient) return quotient;
    const value = c.expression(arg);
    // an integer rounded is itself (an integer literal stays one)
    if (value.type === 'int-literal' || (!isLiteralType(value.type) && !isFloat(value.type) && value.type !== 'bool'))
      return value;
    return mathOfTyped(c, fn, [value], node);
  }
  return mathOf(c, fn, node.arguments, node);
}

export function numberCall(c: TyperContext, name: string, node: Call): Typed {
  if ((name === 'isNaN' || name === 'isFinite' || name === 'isInteger') && node.arguments.length === 1) {
    const arg = c.expression(node.arguments[0]!);
    const loc = c.loc(node);
    if (!isLiteralType(arg.type) && !isFloat(arg.type))
      return typed({ op: 'const', type: 'bool', value: name !== 'isNaN', loc });
    if (name === 'isInteger') {
      const t = floatType([arg]);
      const x = c.to(arg, t, node);
      const truncated: Expr = { op: 'math', type: t, fn: 'trunc', argType: t, args: [x], loc };
      return typed({ op: 'compare', type: 'bool', operator: 'eq', operandType: t, left: truncated, right: x, loc });
    }
    return mathOfTyped(c, name === 'isNaN' ? 'isnan' : 'isfinite', [arg], node);
  }
  return c.typeError(node, `Number.${name} is not available in kernels; available: isNaN, isFinite, isInteger`);
}

export function mathOf(c: TyperContext, fn: MathFunction, argNodes: readonly Node[], node: Node): Typed {
  const spec = MATH_FUNCTIONS[fn];
  if (argNodes.length !== spec.arity)
    c.typeError(node, `${fn} takes ${spec.arity} argument(s), ${argNodes.length} given`);
  return mathOfTyped(
    c,
    fn,
    argNodes.map((n) => c.expression(n)),
    node,
  );
}

function mathOfTyped(c: TyperContext, fn: MathFunction, args: readonly Typed[], node: Node): Typed {
  const spec = MATH_FUNCTIONS[fn];
  let argType: ScalarName;
  const allIntegers = args.every((a) => a.type === 'int-literal' || (!isLiteralType(a.type) && !isFloat(a.type)));
  if (spec.int && allIntegers) {
    let t: ValueType = 'int-literal';
    for (const a of args) t = promoteValues(t, a.type);
    argType = isLiteralType(t) ? defaultLiteralType(t, undefined) : arithmeticType(t);
  } else {
    argType = floatType(args);
  }
  const converted = args.map((a) => c.to(a, argType, node));
  const type: ScalarName = fn === 'isnan' || fn === 'isfinite' ? 'bool' : argType;
  return typed({ op: 'math', type, fn, argType, args: converted, loc: c.loc(node) });
}
