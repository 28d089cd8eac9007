/**
 * Literals: JavaScript's own arithmetic on them (operations on literals
 * alone fold, as in JavaScript), and a literal made as a constant of a type
 * by the typed IR's conversion rules.
 */
import { roundToBfloat16, roundToFloat16 } from '@cuda-js/core';
import { bitsOf, isFloat, isSigned, type ScalarName } from './jit-types.js';
import type { Expr, Loc } from './typed-ir.js';

/** The JavaScript value of a folded literal operation, with JavaScript's own semantics. */
export function foldNumbers(operator: string, a: number, b: number): number | undefined {
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '**':
      return a ** b;
    case '&':
      return a & b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    case '>>>':
      return a >>> b;
    default:
      return undefined;
  }
}

function wrapInteger(value: number, t: ScalarName): number {
  const bits = bitsOf(t);
  if (bits === 32) return isSigned(t) ? value | 0 : value >>> 0;
  const m = 2 ** bits;
  let v = ((value % m) + m) % m;
  if (isSigned(t) && v >= m / 2) v -= m;
  return v;
}

/** `value` rounded to the float type `t` (to nearest even, once). */
export function roundToFloat(value: number, t: ScalarName): number {
  switch (t) {
    case 'f32':
      return Math.fround(value);
    case 'f16':
      return roundToFloat16(value);
    case 'bf16':
      return roundToBfloat16(value);
    default:
      return value;
  }
}

/** A constant of type `t` holding the JavaScript number `value`, converted by the typed IR's rules. */
export function constantOf(value: number, t: ScalarName, loc: Loc | undefined): Expr {
  if (t === 'bool') return { op: 'const', type: t, value: value !== 0 && !Number.isNaN(value), loc };
  if (isFloat(t)) return { op: 'const', type: t, value: roundToFloat(value, t), loc };
  let v = Number.isNaN(value) ? 0 : Math.trunc(value);
  if (t === 'i64' || t === 'u64') {
    const big = Number.isFinite(v) ? BigInt(v) : v > 0 ? 2n ** 63n : -(2n ** 63n);
    return { op: 'const', type: t, value: t === 'i64' ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big), loc };
  }
  if (!Number.isFinite(v)) v = v > 0 ? 2 ** 53 : -(2 ** 53);
  return { op: 'const', type: t, value: wrapInteger(v, t), loc };
}
