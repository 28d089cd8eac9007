import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bfloat16Bits,
  bfloat16FromBits,
  float16Bits,
  float16FromBits,
  roundToBfloat16,
  roundToFloat16,
} from './half-floats.js';

const view = new DataView(new ArrayBuffer(8));

/** A double from its 64 bits. */
function doubleOf(bits: bigint): number {
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

/** The double just above (direction 1) or below (-1) a positive finite `x`. */
function step(x: number, direction: 1 | -1): number {
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(direction));
  return view.getFloat64(0);
}

/**
 * The reference: `x` rounded to `precision` significant bits with normal
 * numbers from 2^minExponent up to 2^(maxExponent+1), to nearest with ties to
 * even, computed on the exact integer significand with BigInt.
 */
function exactRound(x: number, precision: number, minExponent: number, maxExponent: number): number {
  if (x === 0 || Number.isNaN(x) || !Number.isFinite(x)) return x;
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const significand = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = biased === 0 ? -1074 : biased - 1075; // |x| = significand · 2^exponent
  const binade = exponent + significand.toString(2).length - 1;
  const quantum = Math.max(binade, minExponent) - (precision - 1);
  let kept = significand;
  let scale = exponent;
  if (exponent < quantum) {
    const shift = BigInt(quantum - exponent);
    kept = significand >> shift;
    const rest = significand - (kept << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
    scale = quantum;
  }
  const magnitude = Number(kept) * 2 ** scale;
  const rounded = magnitude >= 2 ** (maxExponent + 1) ? Infinity : magnitude;
  return x < 0 ? -rounded : rounded;
}

const float16Reference = (x: number): number => exactRound(x, 11, -14, 15);
const bfloat16Reference = (x: number): number => exactRound(x, 8, -126, 127);

/** binary16 bits decoded through f32's layout (a second way to read them). */
function float16ByFloat32(bits: number): number {
  const sign = (bits & 0x8000) << 16;
  let e = (bits >>> 10) & 0x1f;
  let m = bits & 0x3ff;
  if (e === 0x1f) view.setUint32(0, sign | 0x7f800000 | (m << 13));
  else if (e === 0 && m === 0) view.setUint32(0, sign);
  else {
    if (e === 0) {
      // subnormal: normalize
      e = 1;
      while ((m & 0x400) === 0) {
        m <<= 1;
        e--;
      }
      m &= 0x3ff;
    }
    view.setUint32(0, sign | ((e - 15 + 127) << 23) | (m << 13));
  }
  return view.getFloat32(0);
}

const anyDouble = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(doubleOf);

describe('binary16', () => {
  it('decodes every bit pattern as f32 does, and every value encodes to its own bits', () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = float16FromBits(bits);
      const expected = float16ByFloat32(bits);
      if (Number.isNaN(expected)) {
        if (!Number.isNaN(value) || float16Bits(value) !== 0x7e00) wrong.push(bits);
      } else if (!Object.is(value, expected) || float16Bits(value) !== bits || !Object.is(roundToFloat16(value), value))
        wrong.push(bits);
    }
    expect(wrong).toEqual([]);
  });

  it('rounds any double once, to nearest even, as the exact reference does', () => {
    fc.assert(
      fc.property(
        anyDouble,
        (x) =>
          Object.is(roundToFloat16(x), float16Reference(x)) || (Number.isNaN(x) && Number.isNaN(roundToFloat16(x))),
      ),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(fc.double({ min: -70000, max: 70000 }), (x) => Object.is(roundToFloat16(x), float16Reference(x))),
      { numRuns: 20000 },
    );
  });

  it('rounds at and around every midpoint between neighbours (ties to even), where rounding through f32 would fail', () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x7bff; bits++) {
      const mid = (float16FromBits(bits) + float16FromBits(bits + 1)) / 2; // exact: one more bit
      for (const x of [mid, step(mid, 1), step(mid, -1)]) {
        if (roundToFloat16(x) !== float16Reference(x) || roundToFloat16(-x) !== -float16Reference(x)) wrong.push(x);
      }
    }
    expect(wrong).toEqual([]);
    expect(roundToFloat16(1 + 2 ** -11 + 2 ** -40)).toBe(1 + 2 ** -10); // Math.fround would make it a tie first
  });

  it('keeps subnormals and signed zeros, and overflows to infinity from 65520', () => {
    expect(roundToFloat16(2 ** -24)).toBe(2 ** -24);
    expect(roundToFloat16(2 ** -25)).toBe(0); // a tie: to even, zero
    expect(roundToFloat16(step(2 ** -25, 1))).toBe(2 ** -24);
    expect(Object.is(roundToFloat16(-(2 ** -26)), -0)).toBe(true);
    expect(roundToFloat16(65519.99)).toBe(65504);
    expect(roundToFloat16(65520)).toBe(Infinity);
    expect(roundToFloat16(-1e300)).toBe(-Infinity);
    expect(float16Bits(-0)).toBe(0x8000);
    expect(float16Bits(Infinity)).toBe(0x7c00);
    expect(float16Bits(-65520)).toBe(0xfc00);
    expect(float16Bits(65504)).toBe(0x7bff);
  });
});

describe('bfloat16', () => {
  it('decodes every bit pattern as the high half of an f32, and every value encodes to its own bits', () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      view.setUint32(0, bits << 16);
      const expected = view.getFloat32(0);
      const value = bfloat16FromBits(bits);
      if (Number.isNaN(expected)) {
        if (!Number.isNaN(value) || bfloat16Bits(value) !== 0x7fc0) wrong.push(bits);
      } else if (
        !Object.is(value, expected) ||
        bfloat16Bits(value) !== bits ||
        !Object.is(roundToBfloat16(value), value)
      )
        wrong.push(bits);
    }
    expect(wrong).toEqual([]);
  });

  it('rounds any double once, to nearest even, as the exact reference does', () => {
    fc.assert(
      fc.property(
        anyDouble,
        (x) =>
          Object.is(roundToBfloat16(x), bfloat16Reference(x)) || (Number.isNaN(x) && Number.isNaN(roundToBfloat16(x))),
      ),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6 }), (x) => Object.is(roundToBfloat16(x), bfloat16Reference(x))),
      { numRuns: 20000 },
    );
  });

  it('rounds at and around every midpoint between neighbours (ties to even)', () => {
    const wrong: number[] = [];
    for (let bits = 0; bits < 0x7f7f; bits++) {
      const mid = (bfloat16FromBits(bits) + bfloat16FromBits(bits + 1)) / 2;
      for (const x of [mid, step(mid, 1), step(mid, -1)]) {
        if (roundToBfloat16(x) !== bfloat16Reference(x) || roundToBfloat16(-x) !== -bfloat16Reference(x)) wrong.push(x);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps subnormals and overflows to infinity past the largest finite value plus half an ulp', () => {
    expect(roundToBfloat16(2 ** -133)).toBe(2 ** -133);
    expect(roundToBfloat16(2 ** -134)).toBe(0);
    expect(roundToBfloat16(1 + 2 ** -8 + 2 ** -30)).toBe(1 + 2 ** -7); // Math.fround would make it a tie first
    const largest = bfloat16FromBits(0x7f7f);
    expect(roundToBfloat16(largest)).toBe(largest);
    expect(roundToBfloat16(step(2 ** 128 - 2 ** 119, -1))).toBe(largest);
    expect(roundToBfloat16(2 ** 128 - 2 ** 119)).toBe(Infinity);
    expect(bfloat16Bits(1)).toBe(0x3f80);
    expect(bfloat16Bits(-0)).toBe(0x8000);
  });
});
