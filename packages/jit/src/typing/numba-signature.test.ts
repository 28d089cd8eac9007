// Signatures as numba writes them, for kernels (`jit(fn, { signatures: ['void(...)'] })`,
// `compile`, `inspect`) and the ufunc builders: the reader against the token form,
// the layouts of numba's brackets, the launch's fit of an any-strides array, and the named errors.
import { f32, f64, i32, i64, u8 } from '@cuda-js/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { jit } from '../jit.js';
import { signatureKey } from './jit-types.js';
import { parseNumbaSignature } from './numba-signature.js';
import { array, resolveSignature } from './signature.js';

describe("numba's signature text", () => {
  test('reads the types, ranks and layouts numba writes, in numba names and in cuda-js names', () => {
    expect(resolveSignature('void(float32, float32[:], float32[:])')).toEqual(
      resolveSignature([f32, array(f32, 1, 'A'), array(f32, 1, 'A')]),
    );
    expect(resolveSignature('void(int32[:, ::1], float64[::1, :], uint8[::1], int64[:, :, :])')).toEqual(
      resolveSignature([array(i32, 2, 'C'), array(f64, 2, 'F'), array(u8, 1, 'C'), array(i64, 3, 'A')]),
    );
    // numba's short names: i8 is int64 inside numba's text
    expect(resolveSignature('(i8, f4, f8[:])')).toEqual(resolveSignature([i64, f32, array(f64, 1, 'A')]));
    expect(resolveSignature('void()')).toEqual([]);
    expect(parseNumbaSignature('float32(float32, float32)')).toMatchObject({
      returns: 'f32',
      args: [
        { scalar: 'f32', rank: undefined },
        { scalar: 'f32', rank: undefined },
      ],
    });
  });

  test('refuses what is not a kernel signature with a KernelTypeError that says what to write', () => {
    const cases: [string, RegExp][] = [
      ['float32(float32)', /a kernel returns nothing; write 'void\(\.\.\.\)'/],
      ['void(quux)', /unknown type 'quux'/],
      ['void(float32[:, :, :, :])', /arrays have 1 to 3 dimensions; got 4/],
      ['void(float32[::2])', /an array type is written name\[:\]/],
      ['void(float32[::1, ::1])', /an array type is written/],
      ['void(float32[:, ::1, :])', /'::1' marks the contiguous dimension/],
      ['void float32', /expected 'result\(arg, \.\.\.\)'/],
      ['void((float32))', /expected 'result\(arg, \.\.\.\)'/],
      ['void(float32 x)', /cannot read the type 'float32 x'/],
      [`void(${'float32, '.repeat(10000)}float32)`, /more than the 65536 read/],
    ];
    for (const [text, message] of cases) {
      expect(() => resolveSignature(text), text.slice(0, 40)).toThrow(KernelTypeError);
      expect(() => resolveSignature(text), text.slice(0, 40)).toThrow(message);
    }
  });

  test('any text is read into a signature or refused with a KernelTypeError, never anything else', () => {
    const piece = fc.constantFrom('void', 'float32', 'int64', 'f4', '(', ')', '[', ']', ':', '::1', ',', ' ', 'x', '1');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join('');
        try {
          const types = resolveSignature(text);
          expect(signatureKey(types)).toBeTypeOf('string');
        } catch (error) {
          expect(error).toBeInstanceOf(KernelTypeError);
        }
      }),
      { seed: 20261202, numRuns: 500 },
    );
  });

  test("a kernel declared with numba's text takes compact arrays and JS numbers, as numba's dispatcher converts them", () => {
    const axpy = jit(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]! + y[i]!;
      },
      { target: 'simulator', signatures: ['void(float32, float32[:], float32[:])'] },
    );
    const x = Float32Array.from({ length: 40 }, (_, i) => i);
    const y = new Float32Array(40).fill(1);
    axpy.launch({ grid: 2, block: 32 }, 0.5, x, y);
    expect([...y]).toEqual(Array.from({ length: 40 }, (_, i) => Math.fround(0.5 * i + 1)));
    expect([...axpy.specializations.keys()]).toEqual(["f32, array(f32, 1, 'A'), array(f32, 1, 'A')"]);
    // compile and inspect take the same text
    expect(axpy.inspect('void(float32, float32[::1], float32[::1])').types.params).toEqual({
      a: 'f32',
      x: "array(f32, 1, 'C')",
      y: "array(f32, 1, 'C')",
    });
  });

  test('an array of another element type or rank does not fit the declared any-strides array: the kernel is typed for its own types', () => {
    const fill = jit(
      (x: Float64Array, v: number) => {
        const i = cuda.grid(1);
        if (i < x.length) x[i] = v;
      },
      { target: 'simulator', signatures: ['void(float32[:], float32)'] },
    );
    const x = new Float64Array(4);
    fill.launch({ grid: 1, block: 4 }, x, 2.5);
    expect([...x]).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect([...fill.specializations.keys()]).toEqual(["array(f64, 1, 'C'), f64"]);
  });
});
