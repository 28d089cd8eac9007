/**
 * The kernel typer's operators (type-kernel.ts): binary, logical and unary
 * operators, `test ? a : b`, the common type of two values, and the folding
 * of literal operands.
 */
import type { ESTree } from 'meriyah';
import { isFloat, bitsOf, type ScalarName } from './jit-types.js';
import { foldNumbers } from './literals.js';
import { floatType } from './math-calls.js';
import { arithmeticType, defaultLiteralType, promoteValues, type ValueType } from './promotion.js';
import type { BinaryOperator, CompareOperator, Expr } from './typed-ir.js';
import { isLiteralType, typed, type Node, type Typed } from './typer-context.js';
import { literal, to, truthy } from './typer-scope.js';
import type { TyperState } from './typer-state.js';

const COMPARE: Readonly<Record<string, CompareOperator>> = {
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
  '==': 'eq',
  '===': 'eq',
  '!=': 'ne',
  '!==': 'ne',
};
const ARITHMETIC: Readonly<Record<string, BinaryOperator>> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
};
const BITWISE: Readonly<Record<string, BinaryOperator>> = { '&': 'and', '|': 'or', '^': 'xor' };
const SHIFTS: Readonly<Record<string, BinaryOperator>> = { '<<': 'shl', '>>': 'shr', '>>>': 'ushr' };

/** `test ? a : b` (lazily) in the common type of `a` and `b`; literals on both sides with a constant test fold. */
export function selectOf(ty: TyperState, test: Expr, a: Typed, b: Typed, node: Node, aNode: Node, bNode: Node): Typed {
  const t = common(ty, a, b, node);
  if (isLiteralType(t) && a.value !== undefined && b.value !== undefined && test.op === 'const')
    return test.value ? a : b;
  const type = isLiteralType(t) ? concreteOf(t, a, b) : t;
  return typed({
    op: 'select',
    type,
    test,
    then: to(ty, a, type, aNode),
    otherwise: to(ty, b, type, bNode),
    loc: ty.loc(node),
  });
}

/** The concrete type of two literal branches. */
function concreteOf(t: 'int-literal' | 'float-literal', a: Typed, b: Typed): ScalarName {
  return promoteValues(defaultLiteralType(t, a.value), defaultLiteralType(t, b.value)) as ScalarName;
}

function common(ty: TyperState, a: Typed, b: Typed, node: Node): ValueType {
  if (a.type === 'bool' && b.type === 'bool') return 'bool';
  try {
    return promoteValues(a.type, b.type);
  } catch {
    return ty.typeError(node, `no common type for ${a.type} and ${b.type}`);
  }
}

export function binary(ty: TyperState, node: ESTree.BinaryExpression): Typed {
  const op = node.operator;
  if (op === 'in' || op === 'instanceof') return ty.unsupported(node, `'${op}'`);
  // (a / b) | 0 and friends on 32-bit integers fold into one integer division below
  const left = ty.context.expression(node.left);
  const right = ty.context.expression(node.right);
  return binaryOf(ty, op, left, right, node);
}

export function binaryOf(ty: TyperState, op: string, left: Typed, right: Typed, node: Node): Typed {
  const loc = ty.loc(node);
  if (left.value !== undefined && right.value !== undefined && isLiteralType(left.type) && isLiteralType(right.type)) {
    const folded = COMPARE[op] ? undefined : foldNumbers(op, left.value, right.value);
    if (folded !== undefined) {
      const intResult = op !== '/' && op !== '**' && left.type === 'int-literal' && right.type === 'int-literal';
      return literal(ty, folded, node, intResult && Number.isInteger(folded) ? 'int-literal' : 'float-literal');
    }
  }
  const compare = COMPARE[op];
  if (compare) {
    let t = common(ty, left, right, node);
    if (isLiteralType(t))
      t = promoteValues(defaultLiteralType(t, left.value), defaultLiteralType(t, right.value)) as ScalarName;
    const operandType = t === 'bool' ? 'bool' : t;
    return typed({
      op: 'compare',
      type: 'bool',
      operator: compare,
      operandType,
      left: to(ty, left, operandType, node),
      right: to(ty, right, operandType, node),
      loc,
    });
  }
  const arith = ARITHMETIC[op];
  if (arith) {
    let t = arithmetic(ty, left, right, node);
    if (arith === 'div' && !isFloat(t) && bitsOf(t) < 64) t = 'f64'; // JavaScript's `/` on numbers is float division; BigInt's (64-bit) truncates
    return typed({
      op: 'binary',
      type: t,
      operator: arith,
      left: to(ty, left, t, node),
      right: to(ty, right, t, node),
      loc,
    });
  }
  if (op === '**') {
    const t = floatType([left, right]);
    return typed({
      op: 'math',
      type: t,
      fn: 'pow',
      argType: t,
      args: [to(ty, left, t, node), to(ty, right, t, node)],
      loc,
    });
  }
  const bitwise = BITWISE[op];
  if (bitwise) {
    const t = integerOperands(ty, left, right, node);
    return typed({
      op: 'binary',
      type: t,
      operator: bitwise,
      left: to(ty, asInteger(ty, left, node), t, node),
      right: to(ty, asInteger(ty, right, node), t, node),
      loc,
    });
  }
  const shift = SHIFTS[op];
  if (shift) {
    const l = asInteger(ty, left, node);
    let t = isLiteralType(l.type) ? defaultLiteralType(l.type, l.value) : arithmeticType(l.type);
    // `>>>` on 32-bit values gives an unsigned 32-bit result, as JavaScript's does
    if (shift === 'ushr' && bitsOf(t) === 32) t = 'u32';
    const r = asInteger(ty, right, node);
    return typed({ op: 'binary', type: t, operator: shift, left: to(ty, l, t, node), right: to(ty, r, t, node), loc });
  }
  return ty.unsupported(node, `the operator '${op}'`);
}

/** The type of an arithmetic operation; literals alone give their default. */
function arithmetic(ty: TyperState, left: Typed, right: Typed, node: Node): ScalarName {
  const t = common(ty, left, right, node);
  if (t === 'bool') return 'i32';
  if (isLiteralType(t))
    return promoteValues(defaultLiteralType(t, left.value), defaultLiteralType(t, right.value)) as ScalarName;
  return t;
}

/** Floats meet bitwise operators as JavaScript's ToInt32 does: truncated to i32. */
function asInteger(ty: TyperState, t: Typed, node: Node): Typed {
  if (t.type === 'float-literal') return literal(ty, (t.value ?? 0) | 0, node, 'int-literal');
  if (!isLiteralType(t.type) && isFloat(t.type))
    return typed({ op: 'convert', type: 'i32', operand: t.expr, loc: ty.loc(node) });
  return t;
}

function integerOperands(ty: TyperState, left: Typed, right: Typed, node: Node): ScalarName {
  const t = arithmetic(ty, asInteger(ty, left, node), asInteger(ty, right, node), node);
  return isFloat(t) ? 'i32' : t;
}

export function logical(ty: TyperState, node: ESTree.LogicalExpression): Typed {
  if (node.operator === '??') return ty.unsupported(node, "'??' (values in kernels are never null)");
  const left = ty.context.expression(node.left);
  const right = ty.context.expression(node.right);
  let t = common(ty, left, right, node);
  if (isLiteralType(t)) t = defaultLiteralType(t, undefined);
  return typed({
    op: 'logical',
    type: t,
    operator: node.operator === '&&' ? 'and' : 'or',
    left: to(ty, left, t, node),
    right: to(ty, right, t, node),
    loc: ty.loc(node),
  });
}

export function unary(ty: TyperState, node: ESTree.UnaryExpression): Typed {
  const loc = ty.loc(node);
  const operand = ty.context.expression(node.argument);
  switch (node.operator) {
    case '!':
      return typed({ op: 'unary', type: 'bool', operator: 'not', operand: truthy(ty, operand, node.argument), loc });
    case '-': {
      if (isLiteralType(operand.type)) return literal(ty, -(operand.value ?? 0), node, operand.type);
      const t = arithmeticType(operand.type);
      return typed({ op: 'unary', type: t, operator: 'neg', operand: to(ty, operand, t, node), loc });
    }
    case '+':
      if (isLiteralType(operand.type)) return operand;
      return operand.type === 'bool' ? typed(to(ty, operand, 'f64', node)) : operand;
    case '~': {
      const i = asInteger(ty, operand, node);
      if (isLiteralType(i.type)) return literal(ty, ~(i.value ?? 0), node, 'int-literal');
      const t = arithmeticType(i.type);
      return typed({ op: 'unary', type: t, operator: 'bitnot', operand: to(ty, i, t, node), loc });
    }
    default:
      return ty.unsupported(node, `the operator '${node.operator}'`);
  }
}
