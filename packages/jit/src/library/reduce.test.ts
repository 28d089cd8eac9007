import { bfloat16Bits, float16Bits, roundToBfloat16 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { reduce } from './reduce.js';

const sum = reduce((a: number, b: number) => a + b, { target: 'simulator', name: 'sum' });
const max = reduce((a: number, b: number) => Math.max(a, b), { target: 'simulator', name: 'max' });

describe('reduce in the simulator', () => {
  it('sums i32 arrays of any length exactly, across blocks and the second pass', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 2000 }), (values) => {
        expect(sum(Int32Array.from(values))).toBe(values.reduce((a, b) => a + b, 0));
      }),
      { numRuns: 15 },
    );
  });

  it('works for every numeric dtype (one kernel per dtype) and applies init last', () => {
    expect(sum(Float64Array.from([0.5, 0.25, 0.125]))).toBe(0.875);
    expect(sum(new Float32Array([1, 2, 3]), { init: 10 })).toBe(16);
    expect(sum(new Uint8Array([200, 100]))).toBe(44); // u8 arithmetic wraps, as typed arrays store
    expect(sum(BigInt64Array.from([1n << 40n, 5n]), { init: 1n })).toBe((1n << 40n) + 6n);
    expect(max(Int32Array.from([-5, -3, -9]))).toBe(-3);
    expect(max(Float32Array.from({ length: 3000 }, (_, i) => (i * 7919) % 3001))).toBe(3000);
  });

  it('reduces f16 and bf16 arrays (float16 and bfloat16 views of bits), rounding each step to the type', () => {
    const halves = (dtype: 'float16' | 'bfloat16', values: number[]) =>
      StridedMemoryView.fromAny(Uint16Array.from(values, dtype === 'float16' ? float16Bits : bfloat16Bits)).view({
        dtype,
      });
    const quarters = Array.from({ length: 1000 }, (_, i) => (i % 8) * 0.25); // every partial sum is exact in f16
    expect(sum(halves('float16', quarters))).toBe(quarters.reduce((a, b) => a + b, 0));
    expect(sum(halves('float16', [2048, 1]), { init: 0.5 })).toBe(2048); // 2048 + 1 is a tie, to even: 2048; + 0.5 rounds to it too
    expect(max(halves('bfloat16', [1, -3, 1e30, 7]))).toBe(roundToBfloat16(1e30));
  });

  it('gives init for an empty array, and refuses one without init, a 2-D input and a scalar', () => {
    expect(sum(new Float32Array(0), { init: 4 })).toBe(4);
    expect(() => sum(new Float32Array(0))).toThrow(KernelArgumentError);
    expect(() => sum(5)).toThrow(/1-D array/);
    expect(() => sum(new Float32Array(3), { init: 1n })).toThrow(KernelArgumentError);
  });
});

describe("reduce's size and res (numba's)", () => {
  it('size reduces the leading elements only; res takes the result in element 0 and the call gives nothing', () => {
    const values = Float64Array.from({ length: 1500 }, (_, i) => i + 1);
    expect(sum(values, { size: 10 })).toBe(55);
    expect(sum(values, { size: 1000, init: 1 })).toBe(500501);
    const res = new Float64Array(2).fill(-1);
    expect(sum(values, { res })).toBeUndefined();
    expect([...res]).toEqual([(1500 * 1501) / 2, -1]);
    expect(max(Int32Array.from([3, 9, 4]), { res: new Int32Array(1), size: 2 })).toBeUndefined();
    const r = new Int32Array(1);
    max(Int32Array.from([3, 9, 4, 11]), { res: r, size: 3 });
    expect(r[0]).toBe(9);
  });

  it('an empty reduction (size 0) writes init into res; bad sizes and res are refused', () => {
    const res = new Float32Array(1);
    sum(new Float32Array([1, 2, 3]), { size: 0, init: 7, res });
    expect(res[0]).toBe(7);
    expect(() => sum(new Float32Array(3), { size: 4 })).toThrow(
      /size must be an integer from 0 to the array's length 3, got 4/,
    );
    expect(() => sum(new Float32Array(3), { size: 1.5 })).toThrow(/size must be an integer/);
    expect(() => sum(new Float32Array(3), { res: new Float64Array(1) })).toThrow(/res must be a 1-D array of f32/);
    expect(() => sum(new Float32Array(3), { res: new Float32Array(0) })).toThrow(/at least one element/);
  });
});
