import { bitsOf, isSigned, type ScalarName } from '../types/jit-types.js';
import { bigintToFloat32 } from './bigint-to-float32.js';
import { INT_RANGES } from './conversion-source.js';
import { floatToI64, floatToInt, floatToU64 } from './float-to-integer.js';

function fromNumber(x: number, type: ScalarName): number | bigint | boolean {
  switch (type) {
    case 'bool':
      return x !== 0 && x === x;
    case 'f64':
      return x;
    case 'f32':
      return Math.fround(x);
    case 'i64':
      return floatToI64(x);
    case 'u64':
      return floatToU64(x);
    default: {
      const range = INT_RANGES[type];
      if (range === undefined) throw new Error(`simulator: linked functions do not return ${type}`);
      return floatToInt(x, range[0], range[1]);
    }
  }
}

function fromBigint(x: bigint, type: ScalarName): number | bigint | boolean {
  switch (type) {
    case 'bool':
      return x !== 0n;
    case 'f64':
      return Number(x);
    case 'f32':
      return bigintToFloat32(x);
    case 'i64':
      return BigInt.asIntN(64, x);
    case 'u64':
      return BigInt.asUintN(64, x);
    default: {
      if (INT_RANGES[type] === undefined) throw new Error(`simulator: linked functions do not return ${type}`);
      return Number(isSigned(type) ? BigInt.asIntN(bitsOf(type), x) : BigInt.asUintN(bitsOf(type), x));
    }
  }
}

/**
 * What a simulator stand-in of linked code (`declareDevice`'s `simulate`)
 * gave, as a value of the declared result type in the simulator's
 * representation (generated-value.ts): a number as the IR's `convert` from
 * f64 makes it (truncated and saturated for integers, NaN 0), a bigint as
 * the integer it is (wrapping at the type's width; rounded once to a float),
 * a boolean as 0 or 1. Anything else gives undefined: the caller says so.
 */
export function externalResult(value: unknown, type: ScalarName): number | bigint | boolean | undefined {
  if (typeof value === 'number') return fromNumber(value, type);
  if (typeof value === 'bigint') return fromBigint(value, type);
  if (typeof value === 'boolean') return type === 'bool' ? value : type === 'i64' || type === 'u64' ? BigInt(value ? 1 : 0) : value ? 1 : 0;
  return undefined;
}
