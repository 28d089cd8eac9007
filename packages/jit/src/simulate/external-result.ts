import type { ScalarName } from '../typing/jit-types.js';
import { roundToFloat } from '../typing/literals.js';
import { bigintToScalar } from './bigint-to-scalar.js';
import { INT_RANGES } from './conversion-source.js';
import { floatToI64, floatToInt, floatToU64 } from './float-to-integer.js';

function fromNumber(x: number, type: ScalarName): number | bigint | boolean {
  switch (type) {
    case 'bool':
      return x !== 0 && x === x;
    case 'f64':
      return x;
    case 'f32':
    case 'f16':
    case 'bf16':
      return roundToFloat(x, type);
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

/**
 * What a simulator stand-in of linked code (`declareDevice`'s `simulate`)
 * gave, as a value of the declared result type in the simulator's
 * representation (generated-value.ts): a number as the IR's `convert` from
 * f64 makes it (rounded once to f32, f16 or bf16; truncated and saturated
 * for integers, NaN 0), a bigint as the integer it is (bigint-to-scalar.ts:
 * wrapping at the type's width; rounded once to a float), a boolean as 0 or
 * 1. Anything else gives undefined: the caller says so.
 */
export function externalResult(value: unknown, type: ScalarName): number | bigint | boolean | undefined {
  if (typeof value === 'number') return fromNumber(value, type);
  if (typeof value === 'bigint') return bigintToScalar(value, type);
  if (typeof value === 'boolean') return bigintToScalar(value ? 1n : 0n, type);
  return undefined;
}
