// Math.floor/trunc/ceil/round of integer quotients are integers with
// JavaScript's rounding of the real quotient (negatives too), usable as
// indices; a plain number argument is accepted as an index. Simulator
// against plain JS, the GPU path through libNVVM and ptxas.
import { errorOf } from '@cuda-js/test-support/errors';
import { i32, u32 } from '@cuda-js/core';
import { describe, expect, test } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { jit } from '../jit.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { array } from './signature.js';

const quotients = jit(
  (a: Int32Array, b: Int32Array, out: Int32Array) => {
    const k = cuda.grid(1);
    if (k < a.length) {
      const x = a[k]!;
      const y = b[k]!;
      out[4 * k] = Math.floor(x / y);
      out[4 * k + 1] = Math.trunc(x / y);
      out[4 * k + 2] = Math.ceil(x / y);
      out[4 * k + 3] = Math.round(x / y);
    }
  },
  { target: 'simulator' },
);

/** Dividends and divisors around the signs, halves and the i32 range. */
function pairs(): [number[], number[]] {
  const values = [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 2 ** 31 - 1, 2 ** 30 + 1];
  const signed = [...values, ...values.map((v) => -v), -(2 ** 31)];
  const a: number[] = [];
  const b: number[] = [];
  for (const x of signed) for (const y of signed) if (y !== 0 && !(x === -(2 ** 31) && y === -1)) a.push(x), b.push(y);
  return [a, b];
}

describe('integer quotients rounded as JavaScript rounds them', () => {
  test('i32: floor, trunc, ceil and round of a / b equal Math.* of the real quotient', () => {
    const [as, bs] = pairs();
    const a = Int32Array.from(as);
    const b = Int32Array.from(bs);
    const out = new Int32Array(4 * a.length);
    quotients.launch({ grid: Math.ceil(a.length / 128), block: 128 }, a, b, out);
    const expected = as.flatMap((x, k) =>
      [Math.floor, Math.trunc, Math.ceil, Math.round].map((f) => f(x / bs[k]!) | 0),
    );
    expect([...out]).toEqual(expected);
    // the quotients are i32: typed without a float
    const typed = quotients.compile([array('i32', 1), array('i32', 1), array('i32', 1)]).typed;
    expect(JSON.stringify(typed.body)).not.toContain('"f64"');
  });

  test('u32 operands, literal operands, and integers rounded as themselves', () => {
    const k = jit(
      (n: number, m: number, out: Float64Array) => {
        out[0] = Math.floor(n / m);
        out[1] = Math.ceil(n / m);
        out[2] = Math.round(n / m);
        out[3] = Math.trunc(n / m);
        out[4] = Math.floor(7 / 2) + Math.ceil(-7 / 2) * 10; // literals: JavaScript's values
        const i = cuda.threadIdx.x;
        out[5] = Math.floor(i) + Math.round(i + 1);
      },
      { target: 'simulator' },
    );
    const out = new Float64Array(6);
    k.launch({ grid: 1, block: 1 }, u32(4000000000), u32(7), out);
    expect([...out]).toEqual([
      Math.floor(4e9 / 7),
      Math.ceil(4e9 / 7),
      Math.round(4e9 / 7),
      Math.trunc(4e9 / 7),
      3 - 30,
      1,
    ]);
    const types = k.inspect([u32, u32, array('f64', 1)]);
    expect(types.types.params).toMatchObject({ n: 'u32', m: 'u32' });
  });

  test('a rounded quotient indexes an array; a float quotient does not', () => {
    const rows = jit(
      (grid: Int32Array, width: number, out: Int32Array) => {
        const k = cuda.grid(1);
        if (k < out.length) out[k] = grid[Math.floor(k / width) * width]!;
      },
      { target: 'simulator' },
    );
    const grid = Int32Array.from({ length: 12 }, (_, i) => i);
    const out = new Int32Array(12);
    rows.launch({ grid: 1, block: 12 }, grid, i32(4), out);
    expect([...out]).toEqual([0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8]);
    const float = jit(
      (x: Float32Array) => {
        x[cuda.threadIdx.x / 2] = 1;
      },
      { target: 'simulator' },
    );
    expect(() => float.launch({ grid: 1, block: 2 }, new Float32Array(2))).toThrow(KernelTypeError);
  });
});

describe('a plain number argument as an index', () => {
  test('the argument itself, and +, - and * of it with integers, index arrays', () => {
    const k = jit(
      (x: Float64Array, n: number, out: Float64Array) => {
        const i = cuda.threadIdx.x;
        out[i] = x[n]! + x[i + n]! + x[2 * n - 1 - i]!;
      },
      { target: 'simulator' },
    );
    const x = Float64Array.from({ length: 16 }, (_, i) => i * i);
    const out = new Float64Array(4);
    k.launch({ grid: 1, block: 4 }, x, 4, out);
    expect([...out]).toEqual([0, 1, 2, 3].map((i) => 16 + (i + 4) ** 2 + (7 - i) ** 2));
  });

  test('a number that the kernel assigns, or divides, is no index: the error says what is accepted', () => {
    const assigned = jit(
      (x: Float64Array, n: number) => {
        n = n / 2;
        x[n] = 1;
      },
      { target: 'simulator' },
    );
    const error = errorOf<unknown>(() => {
      assigned.launch({ grid: 1, block: 1 }, new Float64Array(4), 4);
    });
    expect(error).toBeInstanceOf(KernelTypeError);
    expect((error as KernelTypeError).detail).toBe(
      'an index must be an integer, got f64 (a plain JS number is f64: a number argument itself, +, - and * of numbers and integers, and Math.floor/trunc/ceil/round of an integer quotient are accepted as indices; else write cuda.i32(...) here)',
    );
  });
});

describeWhen(compileRequirements, 'integer rounding through libNVVM and ptxas', () => {
  test('the quotient kernel compiles to integer division for sm_90, without float conversions', () => {
    const { ptx } = compileAndAssemble(quotients.compile([array('i32', 1), array('i32', 1), array('i32', 1)]).typed);
    expect(ptx).toMatch(/div\.s32/);
    expect(ptx).not.toMatch(/cvt\.rn\.f64\.s32|cvt\.rzi/);
  });
});
