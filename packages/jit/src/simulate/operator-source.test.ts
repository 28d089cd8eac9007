import { errorOf } from '@cuda-js/test-support/errors';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SimulatorError } from '../errors.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { BinaryOperator, CompareOperator, Expr } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  TextLocator,
  binary,
  bool,
  c,
  compare,
  convert,
  evaluate,
  evaluateMany,
  expr,
  f32,
  f64,
  get,
  i32,
  i64,
  set,
  store,
  u32,
  u64,
  unary,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

type IntType = 'i32' | 'u32' | 'i64' | 'u64';
const WIDTH: Record<IntType, number> = { i32: 32, u32: 32, i64: 64, u64: 64 };
const SIGNED: Record<IntType, boolean> = { i32: true, u32: false, i64: true, u64: false };

/** The value of `v` in the type, computed on bigints (the reference the generated code is checked against). */
function wrap(type: IntType, v: bigint): bigint {
  return SIGNED[type] ? BigInt.asIntN(WIDTH[type], v) : BigInt.asUintN(WIDTH[type], v);
}

function referenceBinary(operator: BinaryOperator, type: IntType, a: bigint, b: bigint): bigint {
  const w = BigInt(WIDTH[type]);
  const amount = BigInt.asUintN(Number(w), b) % w;
  switch (operator) {
    case 'add':
      return wrap(type, a + b);
    case 'sub':
      return wrap(type, a - b);
    case 'mul':
      return wrap(type, a * b);
    case 'div':
      return wrap(type, a / b);
    case 'rem':
      return a % b;
    case 'and':
      return a & b;
    case 'or':
      return a | b;
    case 'xor':
      return a ^ b;
    case 'shl':
      return wrap(type, a << amount);
    case 'shr':
      return a >> amount;
    case 'ushr':
      return wrap(type, BigInt.asUintN(Number(w), a) >> amount);
  }
}

const arbitrary: Record<IntType, fc.Arbitrary<bigint>> = {
  i32: fc.oneof(
    fc.bigInt({ min: -(2n ** 31n), max: 2n ** 31n - 1n }),
    fc.constantFrom(0n, 1n, -1n, -(2n ** 31n), 2n ** 31n - 1n, 31n, 32n, 33n),
  ),
  u32: fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }),
    fc.constantFrom(0n, 1n, 2n ** 32n - 1n, 2n ** 31n, 32n, 33n),
  ),
  i64: fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.constantFrom(0n, 1n, -1n, -(2n ** 63n), 2n ** 63n - 1n, 63n, 64n, 65n),
  ),
  u64: fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    fc.constantFrom(0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 64n, 65n),
  ),
};

const toHost = (type: IntType, v: bigint): number | bigint => (WIDTH[type] === 64 ? v : Number(v));
const fromResult = (v: number | bigint): bigint => BigInt(v);

describe('integer arithmetic wraps at the width, as on the GPU', () => {
  const operators: BinaryOperator[] = ['add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'shr', 'ushr'];
  for (const type of ['i32', 'u32', 'i64', 'u64'] as const) {
    for (const operator of operators) {
      test(`${type} ${operator} matches the bigint reference`, () => {
        fc.assert(
          fc.property(
            fc.array(fc.tuple(arbitrary[type], arbitrary[type]), { minLength: 1, maxLength: 64 }),
            (pairs) => {
              const got = evaluateMany(
                type,
                [type, type],
                ([a, b]) => binary(operator, a!, b!),
                pairs.map(([a, b]) => [toHost(type, a), toHost(type, b)]),
              );
              pairs.forEach(([a, b], k) => expect(fromResult(got[k]!)).toBe(referenceBinary(operator, type, a, b)));
            },
          ),
          { numRuns: 25 },
        );
      });
    }
    test(`${type} rem (and div for 64 bits) truncate toward zero`, () => {
      const nonZero = arbitrary[type].filter((v) => v !== 0n);
      const ops: BinaryOperator[] = WIDTH[type] === 64 ? ['div', 'rem'] : ['rem'];
      for (const operator of ops) {
        fc.assert(
          fc.property(fc.array(fc.tuple(arbitrary[type], nonZero), { minLength: 1, maxLength: 64 }), (pairs) => {
            const got = evaluateMany(
              type,
              [type, type],
              ([a, b]) => binary(operator, a!, b!),
              pairs.map(([a, b]) => [toHost(type, a), toHost(type, b)]),
            );
            pairs.forEach(([a, b], k) => expect(fromResult(got[k]!)).toBe(referenceBinary(operator, type, a, b)));
          }),
          { numRuns: 25 },
        );
      }
    });
  }

  test('i64 held as numbers (indices from i32) matches the bigint reference', () => {
    const int32 = arbitrary.i32;
    fc.assert(
      fc.property(fc.array(fc.tuple(int32, int32), { minLength: 1, maxLength: 64 }), (pairs) => {
        const rows = pairs.map(([a, b]) => [Number(a), Number(b)]);
        const wide = (e: Expr): Expr => convert('i64', e);
        for (const operator of ['add', 'sub', 'mul'] as const) {
          const got = evaluateMany('i64', ['i32', 'i32'], ([a, b]) => binary(operator, wide(a!), wide(b!)), rows);
          pairs.forEach(([a, b], k) => expect(got[k]).toBe(referenceBinary(operator, 'i64', a, b)));
        }
        // (a + b) * (a - b) can pass 2^53: the product is then a bigint, still exact.
        const got = evaluateMany(
          'i64',
          ['i32', 'i32'],
          ([a, b]) => binary('mul', binary('add', wide(a!), wide(b!)), binary('sub', wide(a!), wide(b!))),
          rows,
        );
        pairs.forEach(([a, b], k) => expect(got[k]).toBe(wrap('i64', (a + b) * (a - b))));
      }),
      { numRuns: 25 },
    );
  });

  test('edge cases', () => {
    expect(evaluate('i32', () => binary('add', i32(2 ** 31 - 1), i32(1)))).toBe(-(2 ** 31));
    expect(evaluate('i32', () => binary('sub', i32(-(2 ** 31)), i32(1)))).toBe(2 ** 31 - 1);
    expect(evaluate('i32', () => binary('mul', i32(65536), i32(65536)))).toBe(0);
    expect(evaluate('i32', () => binary('mul', i32(0x7fffffff), i32(2)))).toBe(-2);
    expect(evaluate('u32', () => binary('sub', u32(0), u32(1)))).toBe(2 ** 32 - 1);
    expect(evaluate('u32', () => binary('add', u32(2 ** 32 - 1), u32(1)))).toBe(0);
    expect(evaluate('u32', () => binary('mul', u32(2 ** 32 - 1), u32(2 ** 32 - 1)))).toBe(1);
    expect(evaluate('i64', () => binary('add', i64(2n ** 63n - 1n), i64(1n)))).toBe(-(2n ** 63n));
    expect(evaluate('i64', () => binary('div', i64(-(2n ** 63n)), i64(-1n)))).toBe(-(2n ** 63n));
    expect(evaluate('i64', () => binary('rem', i64(-(2n ** 63n)), i64(-1n)))).toBe(0n);
    expect(evaluate('u64', () => binary('sub', u64(0n), u64(1n)))).toBe(2n ** 64n - 1n);
    expect(evaluate('u64', () => binary('mul', u64(2n ** 63n), u64(2n)))).toBe(0n);
  });

  test('division and remainder signs', () => {
    expect(evaluate('i64', () => binary('div', i64(-7n), i64(2n)))).toBe(-3n);
    expect(evaluate('i64', () => binary('div', i64(7n), i64(-2n)))).toBe(-3n);
    expect(evaluate('i64', () => binary('rem', i64(-7n), i64(2n)))).toBe(-1n);
    expect(evaluate('i64', () => binary('rem', i64(7n), i64(-2n)))).toBe(1n);
    expect(evaluate('u64', () => binary('div', u64(2n ** 64n - 1n), u64(2n)))).toBe(2n ** 63n - 1n);
    expect(evaluate('i32', () => binary('rem', i32(-7), i32(2)))).toBe(-1);
    expect(evaluate('i32', () => binary('rem', i32(7), i32(-2)))).toBe(1);
    expect(
      Object.is(
        evaluate('i32', () => binary('rem', i32(-4), i32(2))),
        0,
      ),
    ).toBe(true); // not -0
    expect(evaluate('u32', () => binary('rem', u32(2 ** 32 - 1), u32(10)))).toBe(5);
    // 32-bit integer div is not made by the typer (it is float division in JS), but it is defined.
    expect(evaluate('i32', () => binary('div', i32(-7), i32(2)))).toBe(-3);
    expect(evaluate('u32', () => binary('div', u32(2 ** 32 - 1), u32(2)))).toBe(2 ** 31 - 1);
  });

  test('shift amounts are taken modulo the width', () => {
    expect(evaluate('i32', () => binary('shl', i32(1), i32(32)))).toBe(1);
    expect(evaluate('i32', () => binary('shl', i32(1), i32(33)))).toBe(2);
    expect(evaluate('i32', () => binary('shl', i32(1), i32(-1)))).toBe(-(2 ** 31));
    expect(evaluate('i32', () => binary('shr', i32(-8), i32(33)))).toBe(-4);
    expect(evaluate('i32', () => binary('ushr', i32(-8), i32(1)))).toBe(0x7ffffffc);
    expect(evaluate('i32', () => binary('ushr', i32(-8), i32(32)))).toBe(-8);
    expect(evaluate('u32', () => binary('shl', u32(2 ** 31), u32(1)))).toBe(0);
    expect(evaluate('u32', () => binary('shr', u32(2 ** 32 - 1), u32(36)))).toBe(2 ** 28 - 1);
    expect(evaluate('i64', () => binary('shl', i64(1n), i64(64n)))).toBe(1n);
    expect(evaluate('i64', () => binary('shl', i64(1n), i64(65n)))).toBe(2n);
    expect(evaluate('i64', () => binary('shl', i64(1n), i64(-1n)))).toBe(-(2n ** 63n));
    expect(evaluate('i64', () => binary('shr', i64(-1n), i64(70n)))).toBe(-1n);
    expect(evaluate('i64', () => binary('ushr', i64(-1n), i64(60n)))).toBe(15n);
    expect(evaluate('u64', () => binary('shr', u64(2n ** 64n - 1n), u64(127n)))).toBe(1n);
    expect(evaluate('u64', () => binary('shl', u64(3n), u64(63n)))).toBe(2n ** 63n);
  });

  test('unary operators', () => {
    expect(evaluate('i32', () => unary('neg', i32(-(2 ** 31))))).toBe(-(2 ** 31));
    expect(
      Object.is(
        evaluate('i32', () => unary('neg', i32(0))),
        0,
      ),
    ).toBe(true);
    expect(evaluate('u32', () => unary('neg', u32(1)))).toBe(2 ** 32 - 1);
    expect(evaluate('i64', () => unary('neg', i64(-(2n ** 63n))))).toBe(-(2n ** 63n));
    expect(evaluate('i64', () => unary('neg', convert('i64', i32(5))))).toBe(-5n);
    expect(evaluate('f64', () => convert('f64', unary('neg', convert('i64', i32(0)))))).toBe(0);
    expect(
      Object.is(
        evaluate('f64', () => convert('f64', unary('neg', convert('i64', i32(0))))),
        0,
      ),
    ).toBe(true); // i64 has no -0
    expect(evaluate('u64', () => unary('neg', u64(1n)))).toBe(2n ** 64n - 1n);
    expect(
      Object.is(
        evaluate('f32', () => unary('neg', f32(0))),
        -0,
      ),
    ).toBe(true);
    expect(evaluate('f64', () => unary('neg', f64(2.5)))).toBe(-2.5);
    expect(evaluate('i32', () => unary('bitnot', i32(5)))).toBe(-6);
    expect(evaluate('u32', () => unary('bitnot', u32(0)))).toBe(2 ** 32 - 1);
    expect(evaluate('i64', () => unary('bitnot', i64(0n)))).toBe(-1n);
    expect(evaluate('i64', () => unary('bitnot', convert('i64', i32(-1))))).toBe(0n);
    expect(evaluate('u64', () => unary('bitnot', u64(0n)))).toBe(2n ** 64n - 1n);
    expect(evaluate('bool', () => unary('not', bool(false)))).toBe(true);
    expect(evaluate('bool', () => unary('not', bool(true)))).toBe(false);
  });

  test('arithmetic on bool or the narrow integers is refused: the typer widens them first', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i8');
    const kernel = b.build([expr(store(out, 'i8', [i32(0)], binary('add', c('i8', 1), c('i8', 2))))]);
    expect(() => new SimulatedKernel(kernel, new TextLocator(''))).toThrow(
      /arithmetic is in i32, u32, i64, u64, f16, bf16, f32 and f64 only/,
    );
  });
});

describe('float arithmetic', () => {
  const f32ops: [BinaryOperator, (a: number, b: number) => number][] = [
    ['add', (a, b) => a + b],
    ['sub', (a, b) => a - b],
    ['mul', (a, b) => a * b],
    ['div', (a, b) => a / b],
    ['rem', (a, b) => a % b],
  ];
  for (const [operator, op] of f32ops) {
    test(`f32 ${operator} is rounded to f32 (Math.fround reference)`, () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.float(), fc.float()), { minLength: 1, maxLength: 64 }), (pairs) => {
          const got = evaluateMany('f32', ['f32', 'f32'], ([a, b]) => binary(operator, a!, b!), pairs);
          pairs.forEach(([a, b], k) => expect(got[k]).toBe(Math.fround(op(a, b))));
        }),
        { numRuns: 25 },
      );
    });
    test(`f64 ${operator} is JavaScript's`, () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.double(), fc.double()), { minLength: 1, maxLength: 64 }), (pairs) => {
          const got = evaluateMany('f64', ['f64', 'f64'], ([a, b]) => binary(operator, a!, b!), pairs);
          pairs.forEach(([a, b], k) => expect(got[k]).toBe(op(a, b)));
        }),
        { numRuns: 25 },
      );
    });
  }

  test('f32 rounding after every operation', () => {
    expect(evaluate('f32', () => binary('add', f32(16777216), f32(1)))).toBe(16777216);
    expect(evaluate('f64', () => binary('add', f64(16777216), f64(1)))).toBe(16777217);
    expect(evaluate('f32', () => binary('add', f32(0.1), f32(0.2)))).toBe(
      Math.fround(Math.fround(0.1) + Math.fround(0.2)),
    );
    expect(evaluate('f32', () => binary('div', f32(1), f32(3)))).toBe(Math.fround(1 / 3));
    // (a * b) + c with a rounding in between, not a fused one.
    const a = Math.fround(1 + 2 ** -12);
    expect(evaluate('f32', () => binary('sub', binary('mul', f32(a), f32(a)), f32(1)))).toBe(
      Math.fround(Math.fround(a * a) - 1),
    );
    expect(evaluate('f32', () => binary('mul', f32(3e38), f32(10)))).toBe(Infinity);
  });
});

describe('compare', () => {
  const operators: CompareOperator[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
  const js: Record<CompareOperator, (a: number, b: number) => boolean> = {
    eq: (a, b) => a === b,
    ne: (a, b) => a !== b,
    lt: (a, b) => a < b,
    le: (a, b) => a <= b,
    gt: (a, b) => a > b,
    ge: (a, b) => a >= b,
  };

  test('floats: ordered, except ne, which is true with a NaN', () => {
    for (const type of ['f32', 'f64'] as const) {
      const k = (v: number): Expr => (type === 'f32' ? f32(v) : f64(v));
      for (const operator of operators) {
        expect(evaluate('bool', () => compare(operator, k(NaN), k(1)))).toBe(operator === 'ne');
        expect(evaluate('bool', () => compare(operator, k(NaN), k(NaN)))).toBe(operator === 'ne');
        expect(evaluate('bool', () => compare(operator, k(-0), k(0)))).toBe(js[operator](-0, 0));
        expect(evaluate('bool', () => compare(operator, k(-Infinity), k(1)))).toBe(js[operator](-Infinity, 1));
      }
    }
  });

  test('integers of every representation', () => {
    const cases: [ScalarName, (v: number) => Expr][] = [
      ['i32', (v) => i32(v)],
      ['u32', (v) => u32(v >>> 0)],
      ['i64', (v) => i64(BigInt(v))],
      ['u64', (v) => u64(BigInt.asUintN(64, BigInt(v)))],
    ];
    for (const [type, k] of cases) {
      for (const operator of operators) {
        for (const [a, b] of [
          [1, 2],
          [2, 1],
          [3, 3],
          [-1, 1],
        ] as const) {
          const unsigned = type === 'u32' || type === 'u64';
          const ua = unsigned && a < 0 ? 2 ** 40 : a; // -1 unsigned is the largest value
          expect(
            evaluate('bool', () => compare(operator, k(a), k(b))),
            `${type} ${a} ${operator} ${b}`,
          ).toBe(js[operator](ua, b));
        }
      }
    }
  });

  test('an i64 held as a number compares exactly with one held as a bigint', () => {
    const big = 2n ** 60n + 1n;
    for (const operator of operators) {
      expect(evaluate('bool', () => compare(operator, convert('i64', i32(5)), i64(big)))).toBe(
        js[operator](5, 2 ** 61),
      );
      expect(evaluate('bool', () => compare(operator, i64(5n), convert('i64', i32(5))))).toBe(js[operator](5, 5));
      expect(evaluate('bool', () => compare(operator, i64(-(2n ** 63n)), convert('i64', i32(-(2 ** 31)))))).toBe(
        js[operator](-1, 0),
      );
    }
  });

  test('bools', () => {
    expect(evaluate('bool', () => compare('eq', bool(true), bool(true)))).toBe(true);
    expect(evaluate('bool', () => compare('ne', bool(true), bool(false)))).toBe(true);
    expect(evaluate('bool', () => compare('lt', bool(false), bool(true)))).toBe(true);
  });
});

describe('integer division by zero', () => {
  const text = 'function k(out, a, b) {\n  out[0] = a / b;\n  out[1] = a % b;\n}';
  const locator = new TextLocator(text);
  for (const type of ['i32', 'u32', 'i64', 'u64'] as const) {
    for (const operator of WIDTH[type] === 64 ? (['div', 'rem'] as const) : (['rem'] as const)) {
      test(`${type} ${operator} by zero raises a SimulatorError at the expression`, () => {
        const b = new KernelBuilder();
        const out = b.array('out', type);
        const a = b.scalar('a', type);
        const d = b.scalar('b', type);
        const fragment = operator === 'div' ? 'a / b' : 'a % b';
        const kernel = b.build([
          expr(store(out, type, [i32(0)], binary(operator, get(a, type), get(d, type), locator.loc(fragment)))),
        ]);
        const sim = new SimulatedKernel(kernel, locator);
        const zero = WIDTH[type] === 64 ? 0n : 0;
        const seven = WIDTH[type] === 64 ? 7n : 7;
        const two = WIDTH[type] === 64 ? 2n : 2;
        const host =
          type === 'i32'
            ? new Int32Array(1)
            : type === 'u32'
              ? new Uint32Array(1)
              : type === 'i64'
                ? new BigInt64Array(1)
                : new BigUint64Array(1);
        sim.run([1, 1, 1], [1, 1, 1], [host, seven, two]);
        expect(host[0]).toBe(operator === 'div' ? (WIDTH[type] === 64 ? 3n : 3) : WIDTH[type] === 64 ? 1n : 1);
        const error = errorOf<unknown>(() => {
          sim.run([1, 1, 1], [1, 1, 1], [host, seven, zero]);
        });
        expect(error).toBeInstanceOf(SimulatorError);
        const e = error as SimulatorError;
        expect(e.detail).toBe(
          `integer ${operator === 'div' ? 'division' : 'remainder'} by zero, in thread (0, 0, 0) of block (0, 0, 0)`,
        );
        expect([e.file, e.line, e.column]).toEqual(['kernels/test-kernel.js', operator === 'div' ? 2 : 3, 12]);
        expect(e.message.startsWith(`kernels/test-kernel.js:${operator === 'div' ? 2 : 3}:12: integer`)).toBe(true);
        expect(e.snippet).toContain('^');
      });
    }
  }

  test('the dividend is evaluated before the divisor', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i64');
    const t = b.local('t', 'i64');
    // (t = 42) / (t - 36): the divisor sees the dividend's assignment.
    const kernel = b.build([
      expr(store(out, 'i64', [i32(0)], binary('div', set(t, i64(42n)), binary('add', get(t, 'i64'), i64(-36n))))),
    ]);
    const host = new BigInt64Array(1);
    new SimulatedKernel(kernel, new TextLocator('')).run([1, 1, 1], [1, 1, 1], [host]);
    expect(host[0]).toBe(7n);
  });
});
