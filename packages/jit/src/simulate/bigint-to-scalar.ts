import { bitsOf, isSigned, type ScalarName } from '../typing/jit-types.js';
import { bigintToFloat32 } from './bigint-to-float32.js';
import { bigintToBfloat16, bigintToFloat16 } from './half-float-runtime.js';

/**
 * An integer given as a bigint (a kernel's scalar argument, or what a
 * stand-in of linked code returned), as a value of `type` in the simulator's
 * representation (generated-value.ts): wrapped at the type's width for
 * integers (a bigint for i64 and u64, a number below), rounded once to the
 * nearest float of the type (ties to even, as `cvt.rn` does), `x != 0` for
 * bool.
 */
export function bigintToScalar(x: bigint, type: ScalarName): number | bigint | boolean {
  switch (type) {
    case 'bool':
      return x !== 0n;
    case 'f64':
      return Number(x);
    case 'f32':
      return bigintToFloat32(x);
    case 'f16':
      return bigintToFloat16(x);
    case 'bf16':
      return bigintToBfloat16(x);
    case 'i64':
      return BigInt.asIntN(64, x);
    case 'u64':
      return BigInt.asUintN(64, x);
    default:
      return Number(isSigned(type) ? BigInt.asIntN(bitsOf(type), x) : BigInt.asUintN(bitsOf(type), x));
  }
}
