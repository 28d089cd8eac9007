import { describe, expect, test } from 'vitest';
import { MATH_FUNCTIONS, type MathFunction } from '../typing/typed-ir.js';
import { convert, evaluate, f32, f64, i32, i64, math, u32, u64 } from './ir-builders.test-support.js';

// the functions JavaScript's Math computes under the same name, by their arity
const SAME_NAME = (Object.keys(MATH_FUNCTIONS) as MathFunction[]).filter((fn) => MATH_FUNCTIONS[fn].jsMath);
const ONE_ARGUMENT = SAME_NAME.filter((fn) => MATH_FUNCTIONS[fn].arity === 1);
const TWO_ARGUMENTS = SAME_NAME.filter((fn) => MATH_FUNCTIONS[fn].arity === 2);

const same = (a: number, b: number): boolean => Object.is(a, b);

describe('float functions go through Math.*, rounded for f32', () => {
  const inputs = [0.3, 0.75, 2.5, -1.5, 7, 100.25, -0, NaN, Infinity];
  test.each(ONE_ARGUMENT)('%s', (fn) => {
    const reference = Math[fn as keyof Math] as (x: number) => number;
    for (const x of inputs) {
      expect(
        same(
          evaluate('f64', () => math(fn, f64(x))),
          reference(x),
        ),
        `${fn}(${x}) f64`,
      ).toBe(true);
      const xf = Math.fround(x);
      expect(
        same(
          evaluate('f32', () => math(fn, f32(xf))),
          Math.fround(reference(xf)),
        ),
        `${fn}(${x}) f32`,
      ).toBe(true);
    }
  });
  test.each(TWO_ARGUMENTS)('%s', (fn) => {
    const reference = Math[fn as keyof Math] as (x: number, y: number) => number;
    for (const [x, y] of [
      [0.3, 2],
      [-1.5, 3],
      [2.5, 0.5],
      [NaN, 1],
      [1, NaN],
      [-0, -1],
    ] as const) {
      expect(
        same(
          evaluate('f64', () => math(fn, f64(x), f64(y))),
          reference(x, y),
        ),
      ).toBe(true);
      const [xf, yf] = [Math.fround(x), Math.fround(y)];
      expect(
        same(
          evaluate('f32', () => math(fn, f32(xf), f32(yf))),
          Math.fround(reference(xf, yf)),
        ),
      ).toBe(true);
    }
  });
  test('exp2', () => {
    expect(evaluate('f64', () => math('exp2', f64(10)))).toBe(1024);
    expect(evaluate('f64', () => math('exp2', f64(0.5)))).toBe(Math.SQRT2);
    expect(evaluate('f32', () => math('exp2', f32(0.5)))).toBe(Math.fround(Math.SQRT2));
  });
  test('sqrt of f32 is correctly rounded', () => {
    expect(evaluate('f32', () => math('sqrt', f32(2)))).toBe(Math.fround(Math.SQRT2));
    expect(evaluate('f32', () => math('sqrt', f32(-1)))).toBeNaN();
  });
});

describe('functions defined by typed-ir.ts formulas', () => {
  test('round: floor(x) + (x - floor(x) >= 0.5 ? 1 : 0)', () => {
    const cases: [number, number][] = [
      [2.5, 3],
      [-2.5, -2],
      [0.49999999999999994, 0],
      [-0.5, 0],
      [1.4, 1],
      [-1.6, -2],
      [Infinity, Infinity],
      [-Infinity, -Infinity],
    ];
    for (const [x, r] of cases)
      expect(
        same(
          evaluate('f64', () => math('round', f64(x))),
          r,
        ),
        `round(${x})`,
      ).toBe(true);
    expect(evaluate('f64', () => math('round', f64(NaN)))).toBeNaN();
    expect(evaluate('f32', () => math('round', f32(2.5)))).toBe(3);
    expect(evaluate('f32', () => math('round', f32(8388609.5)))).toBe(Math.fround(8388610));
  });

  test('sign keeps NaN and ±0', () => {
    expect(evaluate('f64', () => math('sign', f64(-3)))).toBe(-1);
    expect(evaluate('f64', () => math('sign', f64(0.25)))).toBe(1);
    expect(
      same(
        evaluate('f64', () => math('sign', f64(-0))),
        -0,
      ),
    ).toBe(true);
    expect(evaluate('f32', () => math('sign', f32(NaN)))).toBeNaN();
    expect(evaluate('i32', () => math('sign', i32(-5)))).toBe(-1);
    expect(evaluate('u32', () => math('sign', u32(0)))).toBe(0);
    expect(evaluate('u32', () => math('sign', u32(2 ** 32 - 1)))).toBe(1);
    expect(evaluate('i64', () => math('sign', i64(-(2n ** 63n))))).toBe(-1n);
    expect(evaluate('i64', () => math('sign', convert('i64', i32(7))))).toBe(1n);
    expect(evaluate('u64', () => math('sign', u64(2n ** 64n - 1n)))).toBe(1n);
  });

  test('abs clears the sign of floats and wraps for integers', () => {
    expect(
      same(
        evaluate('f64', () => math('abs', f64(-0))),
        0,
      ),
    ).toBe(true);
    expect(evaluate('f32', () => math('abs', f32(-3.5)))).toBe(3.5);
    expect(evaluate('f64', () => math('abs', f64(NaN)))).toBeNaN();
    expect(evaluate('i32', () => math('abs', i32(-5)))).toBe(5);
    expect(evaluate('i32', () => math('abs', i32(-(2 ** 31))))).toBe(-(2 ** 31));
    expect(evaluate('u32', () => math('abs', u32(2 ** 32 - 1)))).toBe(2 ** 32 - 1);
    expect(evaluate('i64', () => math('abs', i64(-5n)))).toBe(5n);
    expect(evaluate('i64', () => math('abs', i64(-(2n ** 63n))))).toBe(-(2n ** 63n));
    expect(evaluate('u64', () => math('abs', u64(2n ** 64n - 1n)))).toBe(2n ** 64n - 1n);
  });

  test('min and max: NaN wins, and the formula decides between -0 and 0', () => {
    for (const type of ['f32', 'f64'] as const) {
      const k = (v: number) => (type === 'f32' ? f32(v) : f64(v));
      expect(evaluate(type, () => math('min', k(NaN), k(1)))).toBeNaN();
      expect(evaluate(type, () => math('min', k(1), k(NaN)))).toBeNaN();
      expect(evaluate(type, () => math('max', k(NaN), k(1)))).toBeNaN();
      expect(evaluate(type, () => math('max', k(1), k(NaN)))).toBeNaN();
      expect(evaluate(type, () => math('min', k(2), k(-3)))).toBe(-3);
      expect(evaluate(type, () => math('max', k(2), k(-3)))).toBe(2);
      // (a < b || a != a) ? a : b
      expect(
        same(
          evaluate(type, () => math('min', k(-0), k(0))),
          0,
        ),
      ).toBe(true);
      expect(
        same(
          evaluate(type, () => math('min', k(0), k(-0))),
          -0,
        ),
      ).toBe(true);
      expect(
        same(
          evaluate(type, () => math('max', k(-0), k(0))),
          0,
        ),
      ).toBe(true);
    }
    expect(evaluate('i32', () => math('min', i32(-1), i32(1)))).toBe(-1);
    expect(evaluate('u32', () => math('min', u32(2 ** 32 - 1), u32(0)))).toBe(0);
    expect(evaluate('u32', () => math('max', u32(2 ** 32 - 1), u32(0)))).toBe(2 ** 32 - 1);
    expect(evaluate('i64', () => math('max', i64(-(2n ** 63n)), i64(2n ** 62n)))).toBe(2n ** 62n);
    expect(evaluate('i64', () => math('min', convert('i64', i32(3)), i64(2n ** 62n)))).toBe(3n);
    expect(evaluate('u64', () => math('max', u64(2n ** 64n - 1n), u64(1n)))).toBe(2n ** 64n - 1n);
  });

  test('isnan and isfinite', () => {
    expect(evaluate('bool', () => math('isnan', f64(NaN)))).toBe(true);
    expect(evaluate('bool', () => math('isnan', f32(1)))).toBe(false);
    expect(evaluate('bool', () => math('isfinite', f64(Infinity)))).toBe(false);
    expect(evaluate('bool', () => math('isfinite', f32(NaN)))).toBe(false);
    expect(evaluate('bool', () => math('isfinite', f32(3e38)))).toBe(true);
  });

  test('fma rounds once', () => {
    // 0.1 * 10 - 1 is 2^-54 exactly; unfused, it rounds to 0.
    expect(0.1 * 10 - 1).toBe(0);
    expect(evaluate('f64', () => math('fma', f64(0.1), f64(10), f64(-1)))).toBe(2 ** -54);
    // f32: a * b = 1 + 2^-11 + 2^-24 is a midpoint of two f32 values; c = ±2^-80 decides the direction.
    const a = Math.fround(1 + 2 ** -12);
    expect(Math.fround(a * a + 2 ** -80)).toBe(1 + 2 ** -11); // the double rounding the simulator avoids
    expect(evaluate('f32', () => math('fma', f32(a), f32(a), f32(2 ** -80)))).toBe(1 + 2 ** -11 + 2 ** -23);
    expect(evaluate('f32', () => math('fma', f32(a), f32(a), f32(-(2 ** -80))))).toBe(1 + 2 ** -11);
  });
});
