import { Scalar } from '@cuda-js/core';
import { KernelArgumentError } from '../errors.js';
import { bitsOf, isSigned, type ScalarName } from '../typing/jit-types.js';
import { roundToFloat } from '../typing/literals.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { bigintToScalar } from './bigint-to-scalar.js';

type ScalarParam = Extract<KernelParam, { kind: 'scalar' }>;

/** Wraps an integer-valued number (any magnitude) to an integer type of 32 bits or fewer. */
function wrapInteger(value: number, type: ScalarName): number {
  if (bitsOf(type) === 32) return isSigned(type) ? value | 0 : value >>> 0;
  const bits = bitsOf(type);
  const modulo = 2 ** bits;
  const low = ((value % modulo) + modulo) % modulo;
  return isSigned(type) && low >= modulo / 2 ? low - modulo : low;
}

/**
 * A scalar argument as the generated code holds the parameter's type: a JS
 * number, bigint or boolean, or a core `Scalar` (`f32(2)`), whose value is
 * taken. Numbers round to f32 with `Math.fround` (to f16 and bf16 with core's rounding); integers wrap to the
 * type's width (bigints for i64 and u64). A number that is not an integer
 * is refused for an integer parameter: it would need a rounding that the
 * caller did not ask for.
 */
export function convertScalarArgument(param: ScalarParam, index: number, argument: unknown): number | bigint | boolean {
  const type = param.type;
  const what = `argument ${index + 1} ('${param.name}', ${type})`;
  const value = argument instanceof Scalar ? argument.value : argument;
  if (typeof value === 'bigint') return bigintToScalar(value, type);
  if (typeof value === 'boolean') return bigintToScalar(value ? 1n : 0n, type); // as the integer 0 or 1
  if (typeof value === 'number') {
    switch (type) {
      case 'bool':
        return !!value;
      case 'f64':
      case 'f32':
      case 'f16':
      case 'bf16':
        return roundToFloat(value, type);
      default:
        if (!Number.isInteger(value)) throw new KernelArgumentError(`${what} is ${value}, which is not an integer`);
        if (type === 'i64') return BigInt.asIntN(64, BigInt(value));
        if (type === 'u64') return BigInt.asUintN(64, BigInt(value));
        return wrapInteger(value, type) + 0; // + 0: no -0 in an integer
    }
  }
  const got =
    argument === null
      ? 'null'
      : typeof argument === 'object'
        ? Object.prototype.toString.call(argument)
        : typeof argument;
  throw new KernelArgumentError(
    `${what} takes a number, a bigint, a boolean or a typed scalar such as ${type}(…), got ${got}`,
  );
}
