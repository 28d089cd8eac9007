/**
 * `Math.floor(a / b)`, `Math.trunc(a / b)`, `Math.ceil(a / b)` and
 * `Math.round(a / b)` of integer operands are integers (of the operands'
 * common integer type), as idiomatic JS integer code expects: the quotient
 * rounded as JavaScript rounds the real quotient (floor toward -Infinity,
 * trunc toward zero, ceil toward +Infinity, round half up), computed
 * exactly in integer arithmetic, so usable as an index. `Math.floor(i)` and
 * friends of an integer are the integer itself. A zero divisor is the
 * integer division's (the simulator reports it; JS would give ±Infinity or
 * NaN, which no integer holds).
 */
import type { ESTree } from 'meriyah';
import { isInteger, isSigned, type ScalarName } from './jit-types.js';
import { arithmeticType, defaultLiteralType, promoteValues } from './promotion.js';
import type { BinaryOperator, CompareOperator, Expr, Loc } from './typed-ir.js';
import { isLiteralType, literalValue, typed, type Node, type Typed, type TyperContext } from './typer-context.js';

export type RoundingFunction = 'floor' | 'trunc' | 'ceil' | 'round';

export const ROUNDING_FUNCTIONS: ReadonlySet<string> = new Set<RoundingFunction>(['floor', 'trunc', 'ceil', 'round']);

const isIntegral = (t: Typed): boolean =>
  t.type === 'int-literal' || (!isLiteralType(t.type) && isInteger(t.type as ScalarName));

const JS_ROUNDING: Readonly<Record<RoundingFunction, (x: number) => number>> = {
  floor: Math.floor,
  trunc: Math.trunc,
  ceil: Math.ceil,
  round: Math.round,
};

/**
 * The integer that `Math.<fn>(arg)` gives for an integer argument or an
 * integer quotient, or undefined where the argument is not one (the call
 * is then the float function, typed from the node again).
 */
export function integerRounding(
  c: TyperContext,
  fn: RoundingFunction,
  arg: Node,
  call: ESTree.CallExpression,
): Typed | undefined {
  if (arg.type !== 'BinaryExpression' || (arg as ESTree.BinaryExpression).operator !== '/') return undefined;
  const division = arg as ESTree.BinaryExpression;
  const left = c.expression(division.left);
  const right = c.expression(division.right);
  if (!isIntegral(left) || !isIntegral(right)) return undefined;
  const a = literalValue(left);
  const b = literalValue(right);
  if (a !== undefined && b !== undefined && b !== 0) {
    // both literals: JavaScript's own value, an integer literal
    const value = JS_ROUNDING[fn](a / b);
    return {
      expr: { op: 'const', type: defaultLiteralType('int-literal', value), value, loc: c.loc(call) },
      type: 'int-literal',
      value,
    };
  }
  const common = promoteValues(left.type, right.type);
  const type = isLiteralType(common) ? defaultLiteralType(common, undefined) : arithmeticType(common);
  return typed(
    roundedQuotient(c, fn, type, c.to(left, type, division.left), c.to(right, type, division.right), c.loc(call), call),
  );
}

/** The quotient of integers `dividend / divisor` of `type`, rounded by `fn`; each operand is evaluated once, dividend first. */
function roundedQuotient(
  c: TyperContext,
  fn: RoundingFunction,
  type: ScalarName,
  dividend: Expr,
  divisor: Expr,
  loc: Loc,
  node: Node,
): Expr {
  const binary = (operator: BinaryOperator, l: Expr, r: Expr): Expr => ({
    op: 'binary',
    type,
    operator,
    left: l,
    right: r,
    loc,
  });
  if (fn === 'trunc') return binary('div', dividend, divisor);
  const keep = (name: string, value: Expr): { set: Expr; get: Expr } => {
    const id = c.hiddenLocal(name);
    return { set: c.assignLocal(id, typed(value), node), get: { op: 'local', type, id, loc } };
  };
  const n = keep('$dividend', dividend);
  const d = keep('$divisor', divisor);
  const q = keep('$quotient', binary('div', n.get, d.get));
  const r = keep('$remainder', binary('rem', n.get, d.get));
  const zero: Expr = { op: 'const', type, value: type === 'i64' || type === 'u64' ? 0n : 0, loc };
  const one: Expr = { op: 'const', type, value: type === 'i64' || type === 'u64' ? 1n : 1, loc };
  const compare = (operator: CompareOperator, l: Expr, rr: Expr): Expr => ({
    op: 'compare',
    type: 'bool',
    operator,
    operandType: type,
    left: l,
    right: rr,
    loc,
  });
  const and = (l: Expr, rr: Expr): Expr => ({ op: 'logical', type: 'bool', operator: 'and', left: l, right: rr, loc });
  const or = (l: Expr, rr: Expr): Expr => ({ op: 'logical', type: 'bool', operator: 'or', left: l, right: rr, loc });
  const when = (test: Expr, then: Expr, otherwise: Expr): Expr => ({ op: 'select', type, test, then, otherwise, loc });
  const signed = isSigned(type);
  // the real quotient's sign: negative when the remainder and the divisor differ in sign (trunc then rounded up)
  const inexact = compare('ne', r.get, zero);
  const negative: Expr = signed
    ? or(
        and(compare('lt', r.get, zero), compare('gt', d.get, zero)),
        and(compare('gt', r.get, zero), compare('lt', d.get, zero)),
      )
    : { op: 'const', type: 'bool', value: false, loc };
  let value: Expr;
  if (fn === 'floor') value = when(and(inexact, negative), binary('sub', q.get, one), q.get);
  else if (fn === 'ceil')
    value = when(
      and(inexact, { op: 'unary', type: 'bool', operator: 'not', operand: negative, loc }),
      binary('add', q.get, one),
      q.get,
    );
  else {
    // round half up: floor(x + 1/2). With f = the floored quotient and m = a - f*b (between 0 and b, b's sign),
    // the fraction m/b is at least 1/2 when |m| >= |b| - |m|, i.e. m >= b - m for b > 0 and m <= b - m for b < 0 (no overflow: |m| < |b|).
    const f = keep('$floor', when(and(inexact, negative), binary('sub', q.get, one), q.get));
    const m = keep('$rest', when(and(inexact, negative), binary('add', r.get, d.get), r.get));
    const rest = binary('sub', d.get, m.get);
    const up = signed
      ? or(
          and(compare('gt', d.get, zero), compare('ge', m.get, rest)),
          and(compare('lt', d.get, zero), compare('le', m.get, rest)),
        )
      : compare('ge', m.get, rest);
    // a zero remainder never rounds up (for b > 0: 0 >= b fails; for b < 0: 0 <= b fails)
    value = { op: 'sequence', type, effects: [f.set, m.set], value: when(up, binary('add', f.get, one), f.get), loc };
  }
  return { op: 'sequence', type, effects: [n.set, d.set, q.set, r.set], value, loc };
}
