// Issue 20: integer literals that no 64-bit type holds wrapped silently: a[2**64] = 7 and
// a[1e300] = 7 wrote a[0], and a bigint constant 2n ** 64n + 5n became 5n. Each is a named error now.
import { describe, expect, it } from 'vitest';
import { KernelTypeError } from '../errors.js';
import { array, resolveSignature } from './signature.js';
import { typed, typingError } from './typer.test-support.js';

const f32x1 = array('f32', 1);
const i64x1 = array('i64', 1);

describe('integer literals outside their type', () => {
  it('refuses an index that no i64 holds', () => {
    for (const write of [
      (a: Float32Array) => {
        // biome-ignore lint/correctness/noPrecisionLoss: the kernel source is the point (2^64 and 2^63)
        a[18446744073709551616] = 7;
      },
      (a: Float32Array) => {
        a[1e300] = 7;
      },
      (a: Float32Array) => {
        // biome-ignore lint/correctness/noPrecisionLoss: the kernel source is the point (2^64 and 2^63)
        a[9223372036854775808] = 7;
      },
    ]) {
      const error = typingError(write, [f32x1]);
      expect(error).toBeInstanceOf(KernelTypeError);
      expect(error.message).toMatch(/an index \d+(e\+\d+)? is outside i64's range/);
    }
    expect(() =>
      typed(
        (a: Float32Array) => {
          a[9007199254740992] = 7;
        },
        [f32x1],
      ),
    ).not.toThrow();
  });

  it('refuses a bigint literal or constant of no 64-bit type, and keeps the bits of a u64 one', () => {
    const big = typingError(
      (a: BigInt64Array) => {
        a[0] = 18446744073709551621n;
      },
      [i64x1],
    );
    expect(big.message).toMatch(/is outside the 64-bit integers/);
    const constant = typingError(
      (a: BigInt64Array) => {
        a[0] = HUGE;
      },
      [i64x1],
      { HUGE: 2n ** 64n + 5n },
    );
    expect(constant.message).toMatch(/the constant 'HUGE' \(18446744073709551621n\) is outside the 64-bit integers/);
    expect(() =>
      typed(
        (a: BigInt64Array) => {
          a[0] = MASK;
        },
        [i64x1],
        { MASK: 2n ** 64n - 1n },
      ),
    ).not.toThrow();
  });
});

declare const HUGE: bigint;
declare const MASK: bigint;

// Issue 20: compile() took a forged array type ({ kind: 'array', dtype: 'bogus', ndim: 7 }) as given.
describe('signatures', () => {
  it('take only array types that array() made', () => {
    expect(() =>
      resolveSignature([{ kind: 'array', dtype: 'bogus', ndim: 7, layout: 'C', readonly: false, name: 'x' } as never]),
    ).toThrow(/signature\[0\] is an object that array\(dtype, ndim, layout\) or pointer\(dtype\) did not make/);
    const real = array('f32', 2);
    expect(() => resolveSignature([{ ...real } as never])).toThrow(KernelTypeError);
    expect(resolveSignature(['f32', real])).toEqual(['f32', real]);
  });
});
