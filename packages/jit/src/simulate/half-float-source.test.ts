// f16 and bf16 in the simulator: every operation rounds once to the type
// from the exact result, checked against an exact rational reference
// (BigInt), on random operands and on the edges; conversions from doubles
// and 64-bit integers; fma; Math in f32 rounded back; elements stored as
// bits in views, atomics, constants and scalar arguments.
import {
  bf16 as bf16Scalar,
  bfloat16Bits,
  bfloat16FromBits,
  f16 as f16Scalar,
  float16Bits,
  float16FromBits,
  roundToBfloat16,
  roundToFloat16,
} from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BinaryOperator, Expr, MathFunction } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  atomic,
  binary,
  c,
  compare,
  convert,
  evaluateMany,
  expr,
  get,
  i32,
  load,
  math,
  mload,
  mstore,
  special,
  store,
  syncthreads,
  unary,
  when,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

type Half = 'f16' | 'bf16';
const FORMATS: Readonly<Record<Half, { precision: number; minExponent: number; maxExponent: number }>> = {
  f16: { precision: 11, minExponent: -14, maxExponent: 15 },
  bf16: { precision: 8, minExponent: -126, maxExponent: 127 },
};

const bitLength = (n: bigint): number => n.toString(2).length;

/** A finite double as an exact dyadic rational: sign · mantissa · 2^exponent. */
function dyadic(x: number): { negative: boolean; mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  return {
    negative: x < 0 || Object.is(x, -0),
    mantissa: biased === 0 ? fraction : fraction | (1n << 52n),
    exponent: biased === 0 ? -1074 : biased - 1075,
  };
}

/**
 * The reference: the exact value `sign · numerator / denominator · 2^exponent`
 * rounded to nearest even in `format` (subnormals, overflow to infinity),
 * with BigInt only.
 */
function roundExact(negative: boolean, numerator: bigint, denominator: bigint, exponent: number, type: Half): number {
  const { precision, minExponent, maxExponent } = FORMATS[type];
  if (numerator === 0n) return negative ? -0 : 0;
  // the binade: 2^b ≤ n/d < 2^(b+1)
  let b = bitLength(numerator) - bitLength(denominator);
  const below = b >= 0 ? numerator < denominator << BigInt(b) : numerator << BigInt(-b) < denominator;
  if (below) b--;
  const quantum = Math.max(b + exponent, minExponent) - (precision - 1);
  const shift = exponent - quantum;
  const num = shift >= 0 ? numerator << BigInt(shift) : numerator;
  const den = shift >= 0 ? denominator : denominator << BigInt(-shift);
  let k = num / den;
  const twice = 2n * (num - k * den);
  if (twice > den || (twice === den && (k & 1n) === 1n)) k += 1n;
  let magnitude = Number(k) * 2 ** quantum;
  if (magnitude >= 2 ** (maxExponent + 1)) magnitude = Infinity;
  return negative ? -magnitude : magnitude;
}

/** The reference result of `a op b` (finite operands) in `type`; for `rem`, C's fmod, which is exact. */
function exactBinary(op: 'add' | 'sub' | 'mul' | 'div', a: number, b: number, type: Half): number {
  const x = dyadic(a);
  const y = dyadic(b);
  const sx = x.negative ? -x.mantissa : x.mantissa;
  const sy = y.negative ? -y.mantissa : y.mantissa;
  if (op === 'mul' || op === 'div') {
    const negative = x.negative !== y.negative;
    if (op === 'mul') return roundExact(negative, x.mantissa * y.mantissa, 1n, x.exponent + y.exponent, type);
    return roundExact(negative, x.mantissa, y.mantissa, x.exponent - y.exponent, type);
  }
  const e = Math.min(x.exponent, y.exponent);
  const sum = (sx << BigInt(x.exponent - e)) + (op === 'add' ? 1n : -1n) * (sy << BigInt(y.exponent - e));
  if (sum === 0n) return (op === 'add' ? x.negative && y.negative : x.negative && !y.negative) ? -0 : 0; // IEEE's signed zeros
  return roundExact(sum < 0n, sum < 0n ? -sum : sum, 1n, e, type);
}

/** The reference of fma(a, b, c) (finite): one rounding of the exact a·b + c. */
function exactFma(a: number, b: number, cc: number, type: Half): number {
  const x = dyadic(a);
  const y = dyadic(b);
  const z = dyadic(cc);
  const pe = x.exponent + y.exponent;
  const p = (x.negative !== y.negative ? -1n : 1n) * x.mantissa * y.mantissa;
  const zs = z.negative ? -z.mantissa : z.mantissa;
  const e = Math.min(pe, z.exponent);
  const sum = (p << BigInt(pe - e)) + (zs << BigInt(z.exponent - e));
  if (sum === 0n) return p === 0n && zs === 0n && x.negative !== y.negative && z.negative ? -0 : 0;
  return roundExact(sum < 0n, sum < 0n ? -sum : sum, 1n, e, type);
}

const round: Readonly<Record<Half, (x: number) => number>> = { f16: roundToFloat16, bf16: roundToBfloat16 };
const fromBits: Readonly<Record<Half, (bits: number) => number>> = { f16: float16FromBits, bf16: bfloat16FromBits };

/** Finite values of the type from random bit patterns (every binade equally likely), and the edges. */
function finiteValues(type: Half, count: number, seed: number): number[] {
  const edges =
    type === 'f16'
      ? [0, -0, 2 ** -24, -(2 ** -24), 2 ** -14, 65504, -65504, 1, 1.5, 2047, 2048, 0.1]
      : [0, -0, 2 ** -133, 2 ** -126, bfloat16FromBits(0x7f7f), 1, 255, 256, 0.1];
  const values = fc
    .sample(fc.integer({ min: 0, max: 0xffff }), { numRuns: count, seed })
    .map(fromBits[type])
    .filter(Number.isFinite);
  return [...edges.map(round[type]), ...values];
}

const sameValue = (a: number, b: number): boolean => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

/** The rows whose simulated result differs from the reference, for a readable failure. */
function mismatches(
  rows: readonly (readonly number[])[],
  got: readonly number[],
  want: (row: readonly number[]) => number,
): string[] {
  const out: string[] = [];
  rows.forEach((row, r) => {
    const expected = want(row);
    if (!sameValue(got[r]!, expected)) out.push(`(${row.join(', ')}): ${got[r]} vs ${expected}`);
  });
  return out.slice(0, 10);
}

describe('arithmetic on f16 and bf16 rounds once from the exact result', () => {
  for (const type of ['f16', 'bf16'] as const) {
    for (const op of ['add', 'sub', 'mul', 'div'] as const) {
      it(`${type} ${op}`, () => {
        const a = finiteValues(type, 3000, 1);
        const b = finiteValues(type, 3000, 2);
        const rows = a.map((x, k) => [x, b[k % b.length]!] as const).filter(([, y]) => op !== 'div' || y !== 0);
        const got = evaluateMany(type, [type, type], ([x, y]) => binary(op as BinaryOperator, x!, y!), rows);
        expect(mismatches(rows, got, ([x, y]) => exactBinary(op, x!, y!, type))).toEqual([]);
      });
    }

    it(`${type} rem is fmod (exact), negation flips the sign, infinities and NaN follow IEEE`, () => {
      const rows = finiteValues(type, 500, 3).map((x, k, all) => [x, all[(k * 7 + 3) % all.length]!] as const);
      const rem = evaluateMany(type, [type, type], ([x, y]) => binary('rem', x!, y!), rows);
      expect(mismatches(rows, rem, ([x, y]) => x! % y!)).toEqual([]);
      const neg = evaluateMany(type, [type], ([x]) => unary('neg', x!), rows);
      expect(mismatches(rows, neg, ([x]) => -x!)).toEqual([]);
      const special = [
        [Infinity, 1],
        [Infinity, -Infinity],
        [NaN, 1],
        [1, 0],
        [-1, 0],
      ] as const;
      expect(evaluateMany(type, [type, type], ([x, y]) => binary('div', x!, y!), special)).toEqual([
        Infinity,
        NaN,
        NaN,
        Infinity,
        -Infinity,
      ]);
    });
  }

  it('overflows to infinity, keeps subnormals, and breaks ties to even', () => {
    const f16 = evaluateMany('f16', ['f16', 'f16'], ([x, y]) => binary('add', x!, y!), [
      [65504, 16], // 65520: a tie, to even: infinity
      [65504, 15.9921875], // the largest f16 below 16: 65519.99..., below the tie
      [65504, 17],
      [2 ** -24, 2 ** -24],
      [1, 2 ** -11], // a tie: to even, 1
      [1 + 2 ** -10, 2 ** -11], // a tie: to even, 1 + 2^-9
    ]);
    expect(f16).toEqual([Infinity, 65504, Infinity, 2 ** -23, 1, 1 + 2 ** -9]);
    const bf16 = evaluateMany('bf16', ['bf16', 'bf16'], ([x, y]) => binary('mul', x!, y!), [
      [2 ** 127, 2],
      [2 ** -126, 2 ** -7],
      [2 ** -133, 0.5], // a tie with 0: to even, 0
    ]);
    expect(bf16).toEqual([Infinity, 2 ** -133, 0]);
  });

  it('compares as numbers: ordered, ne true with NaN', () => {
    const rows = [
      [1, 2],
      [NaN, 1],
      [-0, 0],
    ] as const;
    expect(evaluateMany('bool', ['f16', 'f16'], ([x, y]) => compare('lt', x!, y!), rows)).toEqual([true, false, false]);
    expect(evaluateMany('bool', ['bf16', 'bf16'], ([x, y]) => compare('ne', x!, y!), rows)).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe('conversions to f16 and bf16 round once from the exact value', () => {
  const doubles = fc.sample(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { numRuns: 4000, seed: 7 }).map((bits) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, bits);
    return view.getFloat64(0);
  });
  // doubles near the types' midpoints, where rounding through f32 first would fail
  const nearTies = [
    1 + 2 ** -11 + 2 ** -40,
    1 + 2 ** -8 + 2 ** -40,
    -(1 + 2 ** -11 + 2 ** -40),
    3 * 2 ** -25 + 2 ** -60,
    65519.999999,
    2 ** -134 + 2 ** -170,
  ];

  for (const type of ['f16', 'bf16'] as const) {
    it(`from f64 to ${type}`, () => {
      const rows = [...doubles, ...nearTies].filter(Number.isFinite).map((x) => [x] as const);
      const got = evaluateMany(type, ['f64'], ([x]) => convert(type, x!), rows);
      expect(
        mismatches(rows, got, ([x]) =>
          x === 0 ? x : roundExact(x! < 0, dyadic(x!).mantissa, 1n, dyadic(x!).exponent, type),
        ),
      ).toEqual([]);
    });

    it(`from i64 and u64 to ${type}, above 2^53 too`, () => {
      const big = fc.sample(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { numRuns: 1000, seed: 8 });
      // a bf16 tie plus one: Number(x) alone would make it a tie
      const adversarial = [2n ** 60n + 2n ** 52n + 1n, -(2n ** 60n + 2n ** 52n + 1n), 65519n, 65520n, 255n, 257n];
      const rows = [...big, ...adversarial].map((x) => [x] as const);
      const got = evaluateMany(type, ['i64'], ([x]) => convert(type, x!), rows);
      const want = ([x]: readonly bigint[]) => roundExact(x! < 0n, x! < 0n ? -x! : x!, 1n, 0, type);
      const wrong = rows.filter((row, r) => !sameValue(got[r]!, want(row))).map(([x]) => `${x}`);
      expect(wrong).toEqual([]);
      const unsigned = [2n ** 64n - 1n, 2n ** 63n + 2n ** 55n + 1n].map((x) => [x] as const);
      expect(evaluateMany(type, ['u64'], ([x]) => convert(type, x!), unsigned)).toEqual(
        unsigned.map(([x]) => roundExact(false, x, 1n, 0, type)),
      );
    });

    it(`between ${type} and the other types`, () => {
      const rows = finiteValues(type, 500, 9).map((x) => [x] as const);
      expect(
        mismatches(
          rows,
          evaluateMany('f32', [type], ([x]) => convert('f32', x!), rows),
          ([x]) => x!,
        ),
      ).toEqual([]);
      expect(
        mismatches(
          rows,
          evaluateMany('i32', [type], ([x]) => convert('i32', x!), rows),
          ([x]) => Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(x!))) + 0,
        ),
      ).toEqual([]);
      expect(evaluateMany('u8', [type], ([x]) => convert('u8', x!), [[300], [-3], [NaN], [2.9]])).toEqual([
        255, 0, 0, 2,
      ]);
      const other: Half = type === 'f16' ? 'bf16' : 'f16';
      expect(
        mismatches(
          rows,
          evaluateMany(other, [type], ([x]) => convert(other, x!), rows),
          ([x]) => round[other](x!),
        ),
      ).toEqual([]);
      expect(evaluateMany(type, ['i32'], ([x]) => convert(type, x!), [[2 ** 31 - 1], [-257], [65519]])).toEqual(
        [2 ** 31 - 1, -257, 65519].map((x) => round[type](x)),
      );
      expect(evaluateMany(type, ['i32'], ([x]) => convert(type, compare('ne', x!, i32(0))), [[5], [0]])).toEqual([
        1, 0,
      ]);
    });
  }
});

describe('fma and Math on f16 and bf16', () => {
  for (const type of ['f16', 'bf16'] as const) {
    it(`${type} fma rounds a·b + c once`, () => {
      const a = finiteValues(type, 1500, 10);
      const b = finiteValues(type, 1500, 11);
      const z = finiteValues(type, 1500, 12);
      const rows = a.map((x, k) => [x, b[k % b.length]!, z[(k * 5) % z.length]!] as const);
      const got = evaluateMany(type, [type, type, type], ([x, y, w]) => math('fma', x!, y!, w!), rows);
      expect(mismatches(rows, got, ([x, y, w]) => exactFma(x!, y!, w!, type))).toEqual([]);
    });
  }

  it('an f16 fma whose f32 result would be a tie: rounded once, it is not', () => {
    const rows = [[1.5, 683 / 1024, 2 ** -24]] as const; // a·b = 1 + 2^-11 exactly; + 2^-24 is just above the tie
    expect(evaluateMany('f16', ['f16', 'f16', 'f16'], ([x, y, w]) => math('fma', x!, y!, w!), rows)).toEqual([
      1 + 2 ** -10,
    ]);
  });

  it('computes the other functions in f32 and rounds back: sqrt exact for every f16, transcendentals as the f32 ones', () => {
    const all = Array.from({ length: 0x7c00 }, (_, bits) => [float16FromBits(bits)] as const);
    const sqrt = evaluateMany('f16', ['f16'], ([x]) => math('sqrt', x!), all);
    expect(mismatches(all, sqrt, ([x]) => roundExact(false, ...sqrtParts(x!)))).toEqual([]);
    const rows = finiteValues('bf16', 300, 13).map((x) => [x] as const);
    const fns: MathFunction[] = ['exp', 'sin', 'log2', 'floor', 'round', 'abs'];
    for (const fn of fns) {
      const reference = (x: number): number => {
        const f32 =
          fn === 'round'
            ? Math.floor(x) + (x - Math.floor(x) >= 0.5 ? 1 : 0)
            : (Math[fn as 'exp'] as (v: number) => number)(x);
        return roundToBfloat16(Math.fround(f32));
      };
      expect(
        mismatches(
          rows,
          evaluateMany('bf16', ['bf16'], ([x]) => math(fn, x!), rows),
          ([x]) => reference(x!),
        ),
        fn,
      ).toEqual([]);
    }
    expect(evaluateMany('bool', ['f16'], ([x]) => math('isnan', x!), [[NaN], [Infinity]])).toEqual([true, false]);
    expect(
      evaluateMany('f16', ['f16', 'f16'], ([x, y]) => math('max', x!, y!), [
        [NaN, 1],
        [-0, 0],
      ]),
    ).toEqual([NaN, 0]); // (a > b || a != a) ? a : b
  });
});

/** sqrt(x) of an f16 as the exact inputs of roundExact: the square root of a dyadic, to plenty of bits (then rounded by the reference). */
function sqrtParts(x: number): [bigint, bigint, number, Half] {
  if (x === 0) return [0n, 1n, 0, 'f16'];
  const { mantissa, exponent } = dyadic(x);
  // x = m · 2^e with e even after a shift; sqrt = sqrt(m · 2^(e + 2k)) · 2^(-k): floor of the integer root with 80 extra bits, made sticky
  const even = exponent % 2 === 0 ? 0 : 1;
  const scaled = mantissa << BigInt(160 + even);
  let r = BigInt(Math.floor(Math.sqrt(Number(scaled)))); // close; Newton's steps make it the integer root
  for (let step = 0; step < 8; step++) r = (r + scaled / r) >> 1n;
  while (r * r > scaled) r--;
  while ((r + 1n) * (r + 1n) <= scaled) r++;
  const sticky = r * r === scaled ? 0n : 1n; // inexact: an odd last bit below every f16 bit
  return [(r << 1n) | sticky, 1n, (exponent - even - 160) / 2 - 1, 'f16'];
}

describe('f16 and bf16 elements, atomics, constants and scalar arguments', () => {
  it('loads and stores the bits of a float16 view of a Uint16Array, in place', () => {
    const b = new KernelBuilder();
    const x = b.array('x', 'f16', 1, 'C', { readonly: true });
    const y = b.array('y', 'bf16');
    const t = special('tid.x');
    const body = [expr(store(y, 'bf16', [t], convert('bf16', binary('mul', load(x, 'f16', [t]), c('f16', 3)))))];
    const xs = Uint16Array.from([1, 0.1, 65504, -(2 ** -24)], float16Bits);
    const ys = new Uint16Array(4);
    new SimulatedKernel(b.build(body), NO_POSITIONS).run(
      [1, 1, 1],
      [4, 1, 1],
      [
        StridedMemoryView.fromAny(xs).view({ dtype: 'float16' }),
        StridedMemoryView.fromAny(ys).view({ dtype: 'bfloat16' }),
      ],
    );
    expect([...ys]).toEqual(
      [1, 0.1, 65504, -(2 ** -24)].map((v) => bfloat16Bits(roundToFloat16(roundToFloat16(v) * 3))),
    );
  });

  for (const type of ['f16', 'bf16'] as const) {
    it(`atomic add on ${type}, in global, shared and local memory, rounds each sum and gives the old values`, () => {
      const values = finiteValues(type, 64, 14)
        .filter((v) => Math.abs(v) < 100)
        .slice(0, 40);
      const n = values.length;
      for (const where of ['global', 'shared', 'local'] as const) {
        const b = new KernelBuilder();
        const target = b.array('target', type);
        const vals = b.array('vals', type, 1, 'C', { readonly: true });
        const olds = b.array('olds', type);
        const t = special('tid.x');
        const memory =
          where === 'shared' ? b.shared('s', type, 1) : where === 'local' ? b.localArray('l', type, 1) : -1;
        const ref = where === 'global' ? { array: target } : { array: memory, space: where };
        const old = atomic('add', ref, type, [i32(0)], load(vals, type, [t]));
        const first = compare('eq', t, i32(0));
        const body =
          where === 'shared'
            ? [
                when(first, [expr(mstore('shared', memory, type, [i32(0)], load(target, type, [i32(0)])))]),
                syncthreads(),
                expr(store(olds, type, [t], old)),
                syncthreads(),
                when(first, [expr(store(target, type, [i32(0)], mload('shared', memory, type, [i32(0)])))]),
              ]
            : where === 'local'
              ? [
                  expr(store(olds, type, [t], old)),
                  when(first, [expr(store(target, type, [i32(0)], mload('local', memory, type, [i32(0)])))]),
                ]
              : [expr(store(olds, type, [t], old))];
        const bits = type === 'f16' ? float16Bits : bfloat16Bits;
        const view = (array: Uint16Array) =>
          StridedMemoryView.fromAny(array).view({ dtype: type === 'f16' ? 'float16' : 'bfloat16' });
        const host = Uint16Array.from([where === 'local' ? 0 : 0.5], bits);
        const out = new Uint16Array(n);
        new SimulatedKernel(b.build(body), NO_POSITIONS).run(
          [1, 1, 1],
          [n, 1, 1],
          [view(host), view(Uint16Array.from(values, bits)), view(out)],
        );
        // the threads run in order; a local element is each thread's own, from 0
        let sum = 0.5;
        const expectedOlds = values.map((v) => {
          if (where === 'local') return 0;
          const o = sum;
          sum = round[type](sum + v);
          return o;
        });
        expect([...out].map(fromBits[type]), where).toEqual(expectedOlds);
        expect(fromBits[type](host[0]!), where).toBe(where === 'local' ? values[0] : sum);
      }
    });
  }

  it('rounds constants and scalar arguments (numbers, Scalars, bigints) to the parameter type once', () => {
    const b = new KernelBuilder();
    const h = b.scalar('h', 'f16');
    const g = b.scalar('g', 'bf16');
    const out = b.array('out', 'f64');
    const body = [
      expr(store(out, 'f64', [i32(0)], convert('f64', get(h, 'f16')))),
      expr(store(out, 'f64', [i32(1)], convert('f64', get(g, 'bf16')))),
      expr(store(out, 'f64', [i32(2)], convert('f64', c('f16', roundToFloat16(1 / 3))))),
    ];
    const kernel = new SimulatedKernel(b.build(body), NO_POSITIONS);
    const results = new Float64Array(3);
    kernel.run([1, 1, 1], [1, 1, 1], [1 + 2 ** -11 + 2 ** -40, 2n ** 60n + 2n ** 52n + 1n, results]);
    expect([...results]).toEqual([1 + 2 ** -10, 2 ** 60 + 2 ** 53, roundToFloat16(1 / 3)]);
    kernel.run([1, 1, 1], [1, 1, 1], [f16Scalar(70000), bf16Scalar(-0), results]);
    expect([...results].slice(0, 2)).toEqual([Infinity, -0]);
  });

  it('keeps a shared f16 array as bits, zeroed per block (+0), and decodes every pattern it stores', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'f16');
    const s = b.shared('s', 'f16', 1024);
    const t = special('tid.x');
    const body: Expr[] = [
      mstore('shared', s, 'f16', [t], load(out, 'f16', [t])),
      store(out, 'f16', [t], binary('add', mload('shared', s, 'f16', [t]), mload('shared', s, 'f16', [t]))),
    ];
    const data = Uint16Array.from({ length: 1024 }, (_, k) => k * 31);
    const view = StridedMemoryView.fromAny(data).view({ dtype: 'float16' });
    const before = [...data].map(float16FromBits);
    new SimulatedKernel(b.build(body.map(expr)), NO_POSITIONS).run([1, 1, 1], [1024, 1, 1], [view]);
    expect(
      mismatches(
        before.map((v) => [v]),
        [...data].map(float16FromBits),
        ([v]) => roundToFloat16(v! + v!),
      ),
    ).toEqual([]);
  });
});
