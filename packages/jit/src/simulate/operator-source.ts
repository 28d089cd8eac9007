import type { ScalarName } from '../typing/jit-types.js';
import type { BinaryOperator, CompareOperator, Loc, UnaryOperator } from '../typing/typed-ir.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';
import type { SourceContext } from './source-context.js';

/** The types that arithmetic happens in (the typer converts bool and the narrow integers to i32 first). */
type ArithmeticType = 'i32' | 'u32' | 'i64' | 'u64' | 'f16' | 'bf16' | 'f32' | 'f64';

function arithmeticType(type: ScalarName, what: string): ArithmeticType {
  if (
    type === 'i32' ||
    type === 'u32' ||
    type === 'i64' ||
    type === 'u64' ||
    type === 'f16' ||
    type === 'bf16' ||
    type === 'f32' ||
    type === 'f64'
  )
    return type;
  throw new Error(
    `simulator: the typed IR has ${what} on ${type}; arithmetic is in i32, u32, i64, u64, f16, bf16, f32 and f64 only`,
  );
}

/** The rounding of each float type after an operation computed in f64 (none for f64). */
const FLOAT_ROUNDING: Readonly<Record<'f16' | 'bf16' | 'f32' | 'f64', string | undefined>> = {
  f16: 'roundToFloat16',
  bf16: 'roundToBfloat16',
  f32: 'Math.fround',
  f64: undefined,
};

/** Wraps a bigint expression to the 64-bit type. */
function wrap64(type: 'i64' | 'u64', code: string): string {
  return `BigInt.as${type === 'i64' ? 'Int' : 'Uint'}N(64, ${code})`;
}

export function unarySource(
  operator: UnaryOperator,
  type: ScalarName,
  operand: GeneratedValue,
  numberBound: number | undefined,
): GeneratedValue {
  const x = operand.code;
  const out = (code: string): GeneratedValue => ({ code, type });
  if (operator === 'not') {
    if (type !== 'bool') throw new Error(`simulator: the typed IR has 'not' on ${type}; it is on bool only`);
    return out(`(!${x})`);
  }
  const t = arithmeticType(type, `'${operator}'`);
  if (operator === 'neg') {
    switch (t) {
      case 'i32':
        return out(`(-${x} | 0)`);
      case 'u32':
        return out(`(-${x} >>> 0)`);
      case 'f16':
      case 'bf16':
      case 'f32':
      case 'f64':
        return out(`(-${x})`); // exact: negation only flips the sign
      case 'i64':
        if (numberBound !== undefined) return { code: `(0 - ${x})`, type, numberBound }; // 0 - x, not -x: no -0
        return out(wrap64(t, `-${bigintCode(operand)}`));
      case 'u64':
        return out(wrap64(t, `-${x}`));
    }
  }
  // bitnot
  switch (t) {
    case 'i32':
      return out(`(~${x})`);
    case 'u32':
      return out(`(~${x} >>> 0)`);
    case 'i64':
      return out(`(~${bigintCode(operand)})`); // -x - 1 stays in range
    case 'u64':
      return out(wrap64(t, `~${x}`));
    default:
      throw new Error(`simulator: the typed IR has 'bitnot' on ${type}; it is on integers only`);
  }
}

/**
 * Source for a binary operator, both operands of `type`. `numberBound` is
 * set for i64 sums, differences and products held as numbers (see
 * I64NumberRanges); then both operands are numbers too.
 */
export function binarySource(
  operator: BinaryOperator,
  type: ScalarName,
  left: GeneratedValue,
  right: GeneratedValue,
  numberBound: number | undefined,
  loc: Loc | undefined,
  context: SourceContext,
): GeneratedValue {
  const t = arithmeticType(type, `'${operator}'`);
  const out = (code: string): GeneratedValue => ({ code, type });
  const a = left.code;
  const b = right.code;
  if (t === 'f16' || t === 'bf16' || t === 'f32' || t === 'f64') {
    const symbol = FLOAT_OPERATORS[operator];
    if (symbol === undefined)
      throw new Error(`simulator: the typed IR has '${operator}' on ${type}; it is on integers only`);
    // + - * / of two f32 (f16, bf16) are exact in f64, or rounded once to 53 bits, at least twice theirs and 2 more:
    // rounded again to the type, that is the one correctly rounded result. % (fmod) is exact.
    const rounding = FLOAT_ROUNDING[t];
    return out(rounding === undefined ? `(${a} ${symbol} ${b})` : `${rounding}(${a} ${symbol} ${b})`);
  }
  if (operator === 'div' || operator === 'rem') return divisionSource(operator, t, left, right, loc, context);
  if (t === 'i32' || t === 'u32') {
    const unsigned = t === 'u32';
    const toType = (code: string): string => (unsigned ? `(${code} >>> 0)` : `(${code} | 0)`);
    switch (operator) {
      case 'add':
        return out(toType(`${a} + ${b}`));
      case 'sub':
        return out(toType(`${a} - ${b}`));
      case 'mul':
        return out(unsigned ? `(Math.imul(${a}, ${b}) >>> 0)` : `Math.imul(${a}, ${b})`);
      case 'and':
        return out(unsigned ? `((${a} & ${b}) >>> 0)` : `(${a} & ${b})`);
      case 'or':
        return out(unsigned ? `((${a} | ${b}) >>> 0)` : `(${a} | ${b})`);
      case 'xor':
        return out(unsigned ? `((${a} ^ ${b}) >>> 0)` : `(${a} ^ ${b})`);
      // JavaScript's shifts take the amount modulo 32, as typed-ir.ts asks.
      case 'shl':
        return out(unsigned ? `((${a} << ${b}) >>> 0)` : `(${a} << ${b})`);
      case 'shr':
        return out(unsigned ? `(${a} >>> ${b})` : `(${a} >> ${b})`);
      case 'ushr':
        return out(unsigned ? `(${a} >>> ${b})` : `((${a} >>> ${b}) | 0)`);
    }
  }
  // i64 and u64.
  const t64 = t as 'i64' | 'u64';
  if (numberBound !== undefined && (operator === 'add' || operator === 'sub' || operator === 'mul')) {
    // Exact: the bound proves the result is below 2^53 (+ 0 turns a product's -0 into 0).
    const symbol = operator === 'add' ? '+' : operator === 'sub' ? '-' : '*';
    return { code: operator === 'mul' ? `(${a} * ${b} + 0)` : `(${a} ${symbol} ${b})`, type, numberBound };
  }
  const x = bigintCode(left);
  const y = bigintCode(right);
  switch (operator) {
    case 'add':
      return out(wrap64(t64, `${x} + ${y}`));
    case 'sub':
      return out(wrap64(t64, `${x} - ${y}`));
    case 'mul':
      return out(wrap64(t64, `${x} * ${y}`));
    // Bitwise results of two values in range are in range (two's complement on bigints).
    case 'and':
      return out(`(${x} & ${y})`);
    case 'or':
      return out(`(${x} | ${y})`);
    case 'xor':
      return out(`(${x} ^ ${y})`);
    case 'shl':
      return out(wrap64(t64, `${x} << (${y} & 63n)`));
    case 'shr':
      return out(`(${x} >> (${y} & 63n))`); // arithmetic for i64; a u64 is non-negative, so logical
    case 'ushr':
      return out(t64 === 'u64' ? `(${x} >> (${y} & 63n))` : wrap64('i64', `BigInt.asUintN(64, ${x}) >> (${y} & 63n)`));
  }
}

const FLOAT_OPERATORS: Partial<Record<BinaryOperator, string>> = { add: '+', sub: '-', mul: '*', div: '/', rem: '%' };

/**
 * Integer `div` truncates toward zero, `rem` has the dividend's sign; a zero
 * divisor fails at the expression's position. The dividend is evaluated
 * first, then the divisor, as in JavaScript.
 */
function divisionSource(
  operator: 'div' | 'rem',
  t: 'i32' | 'u32' | 'i64' | 'u64',
  left: GeneratedValue,
  right: GeneratedValue,
  loc: Loc | undefined,
  context: SourceContext,
): GeneratedValue {
  const site = context.addFaultSite({ kind: 'division', loc, operator });
  const big = t === 'i64' || t === 'u64';
  const dividend = context.temporary(big ? '0n' : '0');
  const divisor = context.temporary(big ? '0n' : '0');
  const a = big ? bigintCode(left) : left.code;
  const b = big ? bigintCode(right) : right.code;
  let result: string;
  if (big) {
    // bigint / truncates; only i64 MIN / -1 leaves the range, and wraps as on the GPU.
    result =
      operator === 'div' && t === 'i64'
        ? `BigInt.asIntN(64, ${dividend} / ${divisor})`
        : `(${dividend} ${operator === 'div' ? '/' : '%'} ${divisor})`;
  } else if (operator === 'div') {
    // The double quotient of two 32-bit integers truncates to the exact integer quotient.
    result = t === 'u32' ? `((${dividend} / ${divisor}) >>> 0)` : `((${dividend} / ${divisor}) | 0)`;
  } else {
    result = t === 'u32' ? `(${dividend} % ${divisor})` : `((${dividend} % ${divisor}) | 0)`; // | 0: -4 % 2 is -0
  }
  const zero = big ? '0n' : '0';
  return {
    code: `(${dividend} = ${a}, (${divisor} = ${b}) === ${zero} ? divisionByZero(${site}) : ${result})`,
    type: t,
  };
}

const COMPARE_OPERATORS: Readonly<Record<CompareOperator, string>> = {
  eq: '===',
  ne: '!==',
  lt: '<',
  le: '<=',
  gt: '>',
  ge: '>=',
};

/**
 * JavaScript's comparisons are IEEE's: ordered, except `!==`, which is true
 * with a NaN. An i64 held as a number and one held as a bigint compare
 * exactly with `==` / `<` (mixed comparisons are exact in JavaScript).
 */
export function compareSource(operator: CompareOperator, left: GeneratedValue, right: GeneratedValue): GeneratedValue {
  const mixed = (left.numberBound === undefined) !== (right.numberBound === undefined);
  let symbol = COMPARE_OPERATORS[operator];
  if (mixed && operator === 'eq') symbol = '==';
  if (mixed && operator === 'ne') symbol = '!=';
  return { code: `(${left.code} ${symbol} ${right.code})`, type: 'bool' };
}
