import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { guvectorize } from './guvectorize.js';
import { reduce } from './reduce.js';
import { vectorize } from './vectorize.js';

const simulator = { target: 'simulator' } as const;

describe('a scalar that the type it is converted to does not hold (hostile input)', () => {
  it("is a KernelArgumentError naming the ufunc's input, not a RangeError of i32() or i64()", () => {
    const add32 = vectorize(['int32(int32, int32)'], (a: number, b: number) => a + b, simulator);
    expect(() => add32(Int32Array.from([1]), 2 ** 40)).toThrow(KernelArgumentError);
    expect(() => add32(Int32Array.from([1]), 2 ** 40)).toThrow(
      /ufunc: input 2 is 1099511627776, which i32 does not hold/,
    );
    const id64 = vectorize(['int64(int64)'], (a: number) => a, simulator);
    expect(() => id64(2n ** 70n)).toThrow(/input 1 is 1180591620717411303424, which i64 does not hold/);
    const scale = guvectorize(
      ['void(float64[:], int32, float64[:])'],
      '(n),()->(n)',
      (x: Float64Array, s: number, o: Float64Array) => {
        for (let i = 0; i < x.length; i++) o[i] = x[i]! * s;
      },
      simulator,
    );
    expect(() => scale(Float64Array.from([1]), 2 ** 33)).toThrow(KernelArgumentError);
  });

  it("is a KernelArgumentError naming reduce's init: a fraction or a value out of the array's dtype", () => {
    const sum = reduce((a: number, b: number) => a + b, simulator);
    expect(() => sum(Int32Array.from([1]), { init: 1.5 })).toThrow(/reduce: init is 1.5, which i32 does not hold/);
    expect(() => sum(Int32Array.from([1]), { init: 2 ** 40 })).toThrow(KernelArgumentError);
    expect(() => sum(Uint8Array.from([1]), { init: -1 })).toThrow(KernelArgumentError);
    expect(() => sum(BigInt64Array.from([1n]), { init: 2n ** 70n })).toThrow(KernelArgumentError);
    expect(sum(Int32Array.from([1, 2]), { init: 3 })).toBe(6);
  });

  it('property: an integer init is taken exactly where the dtype holds it, else refused by name', () => {
    const sum = reduce((a: number, b: number) => a + b, simulator);
    fc.assert(
      fc.property(
        fc.constantFrom('int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32'),
        fc.integer({ min: -(2 ** 33), max: 2 ** 33 }),
        (dtype, init) => {
          const bits = Number(dtype.replace(/\D/g, ''));
          const signed = dtype.startsWith('int');
          const [low, high] = signed ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
          const array =
            dtype === 'int8'
              ? new Int8Array(0)
              : dtype === 'uint8'
                ? new Uint8Array(0)
                : dtype === 'int16'
                  ? new Int16Array(0)
                  : dtype === 'uint16'
                    ? new Uint16Array(0)
                    : dtype === 'int32'
                      ? new Int32Array(0)
                      : new Uint32Array(0);
          if (init >= low && init <= high) expect(sum(array, { init })).toBe(init);
          else expect(() => sum(array, { init })).toThrow(KernelArgumentError);
        },
      ),
      { seed: 31, numRuns: 200 },
    );
  });
});
