import { StridedMemoryView } from '@cuda-js/memory-view';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { mayOverlapItself } from '../launch/memory-span.js';
import { guvectorize } from './guvectorize.js';
import { vectorize } from './vectorize.js';

const simulator = { target: 'simulator' } as const;
const twice = vectorize(['float64(float64)'], (a: number) => a * 2, simulator);

/** A float64 view of `buffer` with any strides (element 0 at `first`). */
function strided(buffer: Float64Array, first: number, shape: number[], strides: number[]): StridedMemoryView {
  const base = StridedMemoryView.fromTypedArray(buffer);
  return new StridedMemoryView({
    buffer: buffer.buffer,
    byteOffset: buffer.byteOffset + first * 8,
    shape,
    strides,
    dtype: base.dtype,
    device: base.device,
    flags: base.flags,
    exporter: base,
  });
}

describe('a ufunc out that shares memory with an input', () => {
  it('is refused where it overlaps other than in place (numpy reads the inputs as they were)', () => {
    const buf = Float64Array.from([1, 2, 3, 4]);
    expect(() => twice(buf.subarray(0, 3), { out: buf.subarray(1, 4) })).toThrow(KernelArgumentError);
    expect(() => twice(buf.subarray(1, 4), { out: buf.subarray(0, 3) })).toThrow(
      /out shares memory with input 1 other than in place/,
    );
    const reversed = StridedMemoryView.fromTypedArray(buf).slice([undefined, undefined, -1]);
    expect(() => twice(reversed, { out: buf })).toThrow(KernelArgumentError);
    expect([...buf]).toEqual([1, 2, 3, 4]); // nothing was written
  });

  it('is taken in place (the same elements in the same layout), with the answer of a copy', () => {
    const buf = Float64Array.from([1, 2, 3]);
    expect(twice(buf, { out: buf })).toBe(buf);
    expect([...buf]).toEqual([2, 4, 6]);
    const add = vectorize(['float64(float64, float64)'], (a: number, b: number) => a + b, simulator);
    const m = StridedMemoryView.fromTypedArray(Float64Array.from([1, 2, 3, 4, 5, 6])).view({ shape: [2, 3] });
    expect(add(m, m, { out: m })).toBe(m);
    expect([...(m.toTypedArray() as Float64Array)]).toEqual([2, 4, 6, 8, 10, 12]);
  });

  it('is refused where two of its own indices are one element (a stride of 0)', () => {
    const one = new Float64Array(1);
    expect(() => twice(Float64Array.from([1, 2, 3]), { out: strided(one, 0, [3], [0]) })).toThrow(
      /two of its indices are one element/,
    );
  });

  it('is refused for a gufunc operand with core dimensions even in place, and for two outputs in one array', () => {
    const rev = guvectorize(
      ['void(float64[:], float64[:])'],
      '(n)->(n)',
      (x: Float64Array, o: Float64Array) => {
        for (let i = 0; i < x.length; i++) o[i] = x[x.length - 1 - i]!;
      },
      simulator,
    );
    const buf = Float64Array.from([1, 2, 3]);
    expect(() => rev(buf, { out: buf })).toThrow(/core dimensions is read whole by each thread/);
    expect([...(rev(Float64Array.from([1, 2, 3])) as Float64Array)]).toEqual([3, 2, 1]);
    const two = guvectorize(
      ['void(float64, float64[:], float64[:])'],
      '()->(),()',
      (x: number, a: Float64Array, b: Float64Array) => {
        a[0] = x;
        b[0] = -x;
      },
      simulator,
    );
    const out = new Float64Array(2);
    expect(() => two(Float64Array.from([1, 2]), { out: [out, out] })).toThrow(/out\[1\] shares memory with out\[0\]/);
  });

  it('property: over any two windows of one buffer, a call refuses or gives the answer of a copy', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(1, -1),
        (a, o, n, step) => {
          const buf = Float64Array.from({ length: 12 }, (_, i) => i + 1);
          const input = step === 1 ? strided(buf, a, [n], [1]) : strided(buf, a + n - 1, [n], [-1]);
          const out = strided(buf, o, [n], [1]);
          const expected = Array.from(input.toTypedArray() as Float64Array, (v) => v * 2);
          const before = [...buf];
          try {
            twice(input, { out });
          } catch (error) {
            expect(error).toBeInstanceOf(KernelArgumentError);
            expect([...buf]).toEqual(before);
            return;
          }
          expect([...(out.toTypedArray() as Float64Array)]).toEqual(expected);
        },
      ),
      { seed: 31, numRuns: 300 },
    );
  });
});

describe('a ufunc out of another dtype', () => {
  it("is refused where numpy's 'same_kind' casting refuses it (float into integer, signed into unsigned, into bool)", () => {
    expect(() => twice(Float64Array.from([100.7]), { out: new Int8Array(1) })).toThrow(/out holds i8.*gives f64/);
    expect(() => twice(Float64Array.from([1]), { out: new Uint8Array(1) })).toThrow(KernelArgumentError);
    const neg = vectorize(['int32(int32)'], (a: number) => -a, simulator);
    expect(() => neg(Int32Array.from([5]), { out: new Uint32Array(1) })).toThrow(KernelArgumentError);
  });

  it('is taken where the cast stays within a kind or goes to a later one (f64 into f32, i32 into f64)', () => {
    const f32 = new Float32Array(1);
    twice(Float64Array.from([1.5]), { out: f32 });
    expect([...f32]).toEqual([3]);
    const neg = vectorize(['int32(int32)'], (a: number) => -a, simulator);
    const f64 = new Float64Array(1);
    neg(Int32Array.from([5]), { out: f64 });
    expect([...f64]).toEqual([-5]);
  });
});

describe('mayOverlapItself', () => {
  it('property: where it says apart, no two indices of the layout are one element', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -7, max: 7 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (dims) => {
          const shape = dims.map(([e]) => e);
          const strides = dims.map(([, s]) => s);
          const offsets: number[] = [];
          const walk = (d: number, at: number): void => {
            if (d === shape.length) offsets.push(at);
            else for (let i = 0; i < shape[d]!; i++) walk(d + 1, at + i * strides[d]!);
          };
          walk(0, 0);
          if (!mayOverlapItself(shape, strides)) expect(new Set(offsets).size).toBe(offsets.length);
        },
      ),
      { seed: 31, numRuns: 500 },
    );
  });

  it('says apart for every C or F layout, sliced or reversed', () => {
    expect(mayOverlapItself([2, 3, 4], [12, 4, 1])).toBe(false);
    expect(mayOverlapItself([2, 3, 4], [1, 2, 6])).toBe(false);
    expect(mayOverlapItself([2, 3], [-6, 2])).toBe(false);
    expect(mayOverlapItself([3], [0])).toBe(true);
    expect(mayOverlapItself([2, 3], [1, 1])).toBe(true);
  });
});

describe('a gufunc result larger than host memory holds', () => {
  it('is a KernelArgumentError naming its shape, not an engine RangeError', () => {
    const outer = guvectorize(
      ['void(float64[:], float64[:], float64[:, :])'],
      '(n),(m)->(n,m)',
      (a: Float64Array, b: Float64Array, o: Float64Array) => {
        o[0] = a[0]! * b[0]!;
      },
      simulator,
    );
    // 10^12 elements: past what any engine allocates as one typed array
    expect(() => outer(new Float64Array(1e6), new Float64Array(1e6))).toThrow(KernelArgumentError);
    expect(() => outer(new Float64Array(1e6), new Float64Array(1e6))).toThrow(
      /a result of shape \[1000000, 1000000\] .* cannot be allocated as host memory/,
    );
  });
});
