import { f32, f64, float16Bits, float16FromBits, i32 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { JitError, KernelArgumentError } from '../errors.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { vectorize } from './vectorize.js';

const simulator = { target: 'simulator' } as const;

/** A host view of `values` with `shape` (C order). */
function hostArray(
  values: ArrayLike<number>,
  shape: readonly number[],
  dtype: 'float32' | 'float64' | 'int32' = 'float64',
): StridedMemoryView {
  const ctor = dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array;
  return StridedMemoryView.fromBuffer(ctor.from(values), { dtype, shape });
}

/** numpy's broadcasting of a binary function, written out: the reference. */
function broadcastReference(
  a: StridedMemoryView,
  b: StridedMemoryView,
  shape: readonly number[],
  f: (x: number, y: number) => number,
): number[] {
  const at = (v: StridedMemoryView, index: readonly number[]): number => {
    const lead = shape.length - v.ndim;
    let offset = 0;
    for (let d = 0; d < v.ndim; d++) offset += (v.shape[d] === 1 ? 0 : index[lead + d]!) * v.strides[d]!;
    return Number(v.typedArray('read')[offset]);
  };
  const out: number[] = [];
  const size = shape.reduce((x, y) => x * y, 1);
  for (let flat = 0; flat < size; flat++) {
    const index: number[] = [];
    let r = flat;
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d] = r % shape[d]!;
      r = Math.floor(r / shape[d]!);
    }
    out.push(f(at(a, index), at(b, index)));
  }
  return out;
}

describe('vectorize in the simulator', () => {
  it("adds two Float32Arrays with numba's signature text, giving a Float32Array", () => {
    const add = vectorize(['float32(float32, float32)'], (a: number, b: number) => a + b, simulator);
    const a = Float32Array.from({ length: 1000 }, (_, i) => i * 0.5);
    const b = Float32Array.from({ length: 1000 }, (_, i) => 1 / (i + 1));
    const r = add(a, b);
    expect(r).toBeInstanceOf(Float32Array);
    expect(Array.from(r as Float32Array)).toEqual(Array.from(a, (x, i) => Math.fround(x + b[i]!)));
  });

  it('broadcasts n-D operands as numpy does: a row over a matrix, a column, a 4-D array with a vector, scalars', () => {
    const f = (x: number, y: number) => x * 10 + y;
    const mul = vectorize([{ args: [f64, f64], returns: f64 }], f, simulator);
    const cases: [number[], number[]][] = [
      [[3, 4], [4]],
      [
        [3, 4],
        [3, 1],
      ],
      [[2, 3, 4, 5], [5]],
      [
        [2, 1, 4],
        [3, 1],
      ],
      [[1], [2, 3]],
    ];
    for (const [sa, sb] of cases) {
      const na = sa.reduce((x, y) => x * y, 1);
      const nb = sb.reduce((x, y) => x * y, 1);
      const a = hostArray(
        Array.from({ length: na }, (_, i) => i),
        sa,
      );
      const b = hostArray(
        Array.from({ length: nb }, (_, i) => i * 0.5),
        sb,
      );
      const r = mul(a, b) as StridedMemoryView | Float64Array;
      const view = r instanceof StridedMemoryView ? r : StridedMemoryView.fromTypedArray(r);
      const shape = view.shape;
      expect(Array.from(view.typedArray('read') as Float64Array)).toEqual(broadcastReference(a, b, shape, f));
    }
    expect(Array.from(mul(Float64Array.from([1, 2, 3]), 0.5) as Float64Array)).toEqual([10.5, 20.5, 30.5]);
  });

  it('reads strided and reversed inputs and writes a strided out, which it returns', () => {
    const sub = vectorize(['float64(float64, float64)'], (a: number, b: number) => a - b, simulator);
    const base = Float64Array.from({ length: 24 }, (_, i) => i);
    const a = StridedMemoryView.fromTypedArray(base)
      .view({ shape: [4, 6] })
      .slice(null, [0, 6, 2]); // [4, 3], strides [6, 2]
    const b = StridedMemoryView.fromTypedArray(Float64Array.from([100, 200, 300])).slice([undefined, undefined, -1]); // reversed
    const outBase = new Float64Array(24);
    const out = StridedMemoryView.fromTypedArray(outBase)
      .view({ shape: [4, 6] })
      .slice(null, [1, 6, 2]);
    expect(sub(a, b, { out })).toBe(out);
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 3; j++) expect(outBase[i * 6 + 1 + 2 * j]).toBe(base[i * 6 + 2 * j]! - [300, 200, 100][j]!);
    expect(outBase.filter((_, k) => k % 2 === 0).every((v) => v === 0)).toBe(true);
  });

  it('converts inputs to the chosen signature (the first exact match, else the first safe cast) and stores its result type', () => {
    const scale = vectorize(
      ['float32(float32, float32)', 'int32(int32, int32)', 'float64(float64, float64)'],
      (a: number, b: number) => a * b,
      simulator,
    );
    expect(scale(Int32Array.from([3, -4]), Int32Array.from([5, 6]))).toEqual(Int32Array.from([15, -24]));
    // int16 → float32 is safe (exact), so the f32 loop is taken
    const r = scale(Int16Array.from([3, 7]), Float32Array.from([0.1, 0.1]));
    expect(r).toEqual(Float32Array.from([Math.fround(3 * Math.fround(0.1)), Math.fround(7 * Math.fround(0.1))]));
    // int32 with float32 has no safe f32 loop (f32 has 24 bits): f64 is chosen
    expect(scale(Int32Array.from([1 << 30]), Float32Array.from([0.5]))).toEqual(Float64Array.from([(1 << 30) * 0.5]));
    // a JS number fits the f32 signature: converted to f32 once
    expect(scale(Float32Array.from([2]), 0.1)).toEqual(Float32Array.from([Math.fround(2 * Math.fround(0.1))]));
    const intsOnly = vectorize(['int32(int32)'], (a: number) => a + 1, simulator);
    expect(() => intsOnly(Float64Array.from([1.5]))).toThrow(KernelArgumentError);
    expect(() => intsOnly(Float64Array.from([1.5]))).toThrow(/no signature takes inputs of f64/);
  });

  it('types lazily from the inputs without signatures: one result dtype per input dtypes', () => {
    const hyp = vectorize((a: number, b: number) => Math.sqrt(a * a + b * b), simulator);
    expect(hyp(Float32Array.from([3]), Float32Array.from([4]))).toEqual(Float32Array.from([5]));
    expect(hyp(Float64Array.from([5]), Float64Array.from([12]))).toEqual(Float64Array.from([13]));
    expect(hyp(Float32Array.from([6]), f32(8))).toEqual(Float32Array.from([10]));
    const twice = vectorize((a: number) => a * 2, simulator);
    expect(twice(BigInt64Array.from([1n << 40n]))).toEqual(BigInt64Array.from([1n << 41n]));
    expect(twice(i32(7))).toBeInstanceOf(StridedMemoryView); // all scalars: a 0-d result
    expect(Array.from((twice(i32(7)) as StridedMemoryView).typedArray('read') as Int32Array)).toEqual([14]);
  });

  it('works on f16 data (float16 views of bits) and bool results (a bool view)', () => {
    const half = vectorize(['float16(float16, float16)'], (a: number, b: number) => a + b, simulator);
    const bits = (values: number[]) =>
      StridedMemoryView.fromAny(Uint16Array.from(values, float16Bits)).view({ dtype: 'float16' });
    const r = half(bits([1, 2048]), bits([0.5, 1])) as StridedMemoryView;
    expect(r.dtype.name).toBe('float16');
    expect(Array.from(r.typedArray('read') as Uint16Array, float16FromBits)).toEqual([1.5, 2048]);
    const less = vectorize(['bool(float64, float64)'], (a: number, b: number) => a < b, simulator);
    const flags = less(Float64Array.from([1, 5]), 3) as StridedMemoryView;
    expect(flags.dtype.name).toBe('bool');
    expect(Array.from(flags.typedArray('read') as Uint8Array)).toEqual([1, 0]);
  });

  it("reduces a 1-D array with the binary function (numba's ufunc.reduce)", () => {
    const add = vectorize(['int32(int32, int32)'], (a: number, b: number) => a + b, simulator);
    expect(add.reduce(Int32Array.from({ length: 700 }, (_, i) => i))).toBe((699 * 700) / 2);
    const neg = vectorize((a: number) => -a, simulator);
    expect(() => neg.reduce(Int32Array.from([1]))).toThrow(/only a binary ufunc/);
  });

  it('refuses shapes that do not broadcast, a wrong out, too many inputs and bad signatures, by name', () => {
    const add = vectorize(['float64(float64, float64)'], (a: number, b: number) => a + b, simulator);
    expect(() => add(new Float64Array(3), new Float64Array(4))).toThrow(/do not broadcast \(dimension 0: 3 and 4\)/);
    expect(() => add(new Float64Array(3), new Float64Array(3), { out: new Float64Array(4) })).toThrow(
      /out has shape \[4\]/,
    );
    expect(() => add(new Float64Array(3))).toThrow(KernelArgumentError);
    expect(() => add(new Float64Array(3), [1, 2, 3])).toThrow(/JS Array/);
    expect(() => vectorize(['float64(float64)'], (a: number, b: number) => a + b)).toThrow(/takes 2 argument\(s\)/);
    expect(() => vectorize(['float64(quux, float64)'], (a: number, b: number) => a + b)).toThrow(JitError);
    expect(() => vectorize(['float64(quux, float64)'], (a: number, b: number) => a + b)).toThrow(/unknown type 'quux'/);
    expect(() => vectorize(['void(float64, float64)'], (a: number, b: number) => a + b)).toThrow(/no result type/);
  });

  it('takes a stream option and i64 signatures (the stream orders nothing in the simulator)', () => {
    const mix = vectorize(['int64(int64, int32)'], (a: number, b: number) => a * b, simulator);
    expect(mix(BigInt64Array.from([3n, 4n]), Int32Array.from([5, 6]), { stream: 0n })).toEqual(
      BigInt64Array.from([15n, 24n]),
    );
  });
});

describeWhen(compileRequirements, 'vectorize kernels through libNVVM and ptxas', () => {
  it('compiles the flat, strided 2-D and 3-D kernels of a call to PTX that ptxas accepts', () => {
    const f = vectorize(['float32(float32, float32)'], (a: number, b: number) => a * b + 1, simulator);
    f(new Float32Array(8), new Float32Array(8));
    f(hostArray(new Float32Array(12), [3, 4], 'float32'), hostArray(new Float32Array(4), [4], 'float32'));
    f(
      hostArray(new Float32Array(24), [2, 3, 4], 'float32'),
      hostArray(new Float32Array(6), [2, 1, 3, 1].slice(1), 'float32'),
    );
    expect(f.kernels.size).toBe(3);
    for (const kernel of f.kernels.values()) {
      for (const spec of kernel.specializations.values()) {
        const { ptx } = compileAndAssemble(spec.typed);
        expect(ptx).toMatch(/\.entry/);
      }
    }
  });
});
