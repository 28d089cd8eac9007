import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { exactFusedMultiplyAdd, fmaFloat32, fmaFloat64 } from './exact-fma.js';

/** The exact error of a * b by Dekker's TwoProduct (Veltkamp splitting), valid without overflow or underflow. */
function productError(a: number, b: number): number {
  const split = (x: number): [number, number] => {
    const t = 134217729 * x; // 2^27 + 1
    const hi = t - (t - x);
    return [hi, x - hi];
  };
  const p = a * b;
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return al * bl - (p - ah * bh - al * bh - ah * bl);
}

/** f32 fma on bigints: a * b + c scaled by 2^298 is an integer for f32 inputs; rounded at 24 bits, no bit below 2^-149. */
function referenceFmaFloat32(a: number, b: number, c: number): number {
  const scale = 2 ** 298;
  const n = BigInt(a * b * scale) + BigInt(c * scale);
  if (n === 0n) return a * b + c;
  const negative = n < 0n;
  let m = negative ? -n : n;
  const bits = m.toString(2).length;
  const lsb = Math.max(bits - 24, 298 - 149); // in scaled units
  let exponent = 0;
  if (lsb > 0) {
    const shift = BigInt(lsb);
    const q = m >> shift;
    const r = m - (q << shift);
    const half = 1n << (shift - 1n);
    m = r > half || (r === half && (q & 1n) === 1n) ? q + 1n : q;
    exponent = lsb;
  }
  const value = Math.fround(Number(m) * 2 ** (exponent - 298));
  return negative ? -value : value;
}

const finiteF32 = fc.float({ noNaN: true, noDefaultInfinity: true });

describe('fma', () => {
  test('f32 matches an exact bigint reference', () => {
    fc.assert(
      fc.property(finiteF32, finiteF32, finiteF32, (a, b, c) => {
        const got = fmaFloat32(a, b, c);
        const want = referenceFmaFloat32(a, b, c);
        expect(Object.is(got, want) || (got === 0 && want === 0)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  test('f32 near midpoints: products of f32 values with a tiny addend', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1 << 23, max: (1 << 24) - 1 }),
        fc.integer({ min: 1 << 23, max: (1 << 24) - 1 }),
        fc.integer({ min: -60, max: 60 }),
        fc.boolean(),
        (ma, mb, e, negative) => {
          const a = ma * 2 ** -23;
          const b = mb * 2 ** -23;
          const c = (negative ? -1 : 1) * 2 ** (e - 80);
          expect(fmaFloat32(a, b, c)).toBe(referenceFmaFloat32(a, b, c));
          expect(fmaFloat32(a, b, c)).toBe(Math.fround(exactFusedMultiplyAdd(a, b, c, 24, -149)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('f64: fma(a, b, -a*b) is the exact product error', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e100, max: 1e100, noNaN: true }),
        fc.double({ min: -1e100, max: 1e100, noNaN: true }),
        (a, b) => {
          fc.pre(Math.abs(a * b) > 1e-250 || a * b === 0);
          const p = a * b;
          expect(fmaFloat64(a, b, -p) + 0).toBe(productError(a, b) + 0);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('f64 special values follow IEEE', () => {
    expect(fmaFloat64(Infinity, 0, 1)).toBeNaN();
    expect(fmaFloat64(Infinity, 2, -Infinity)).toBeNaN();
    expect(fmaFloat64(1e308, 10, -Infinity)).toBe(-Infinity); // the product overflows only unfused
    expect(1e308 * 2 - 1e308).toBe(Infinity);
    expect(fmaFloat64(1e308, 2, -1e308)).toBe(1e308); // no intermediate overflow
    expect(fmaFloat64(1e308, 10, -1e308)).toBe(Infinity); // 9e308 overflows
    expect(Object.is(fmaFloat64(-0, 1, -0), -0)).toBe(true);
    expect(Object.is(fmaFloat64(0, 1, -0), 0)).toBe(true);
    expect(Object.is(fmaFloat64(1, 1, -1), 0)).toBe(true);
    expect(fmaFloat64(2 ** -1074, 0.5, 0)).toBe(0); // ties to even at the subnormal boundary
    expect(fmaFloat64(2 ** -1074, 1.5, 0)).toBe(2 ** -1073);
    expect(fmaFloat64(2.5, 2 ** -1074, 0)).toBe(2 ** -1073); // 2.5 × 2^-1074 rounds to even
    expect(fmaFloat64(Number.MAX_VALUE, 1, Number.MAX_VALUE)).toBe(Infinity);
    expect(fmaFloat64(NaN, 1, 1)).toBeNaN();
    expect(fmaFloat64(1, 1, NaN)).toBeNaN();
    expect(fmaFloat32(3e38, 10, 0)).toBe(Infinity);
    expect(fmaFloat32(3e38, 10, -Infinity)).toBe(-Infinity);
  });
});
