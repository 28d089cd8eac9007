import { f32, f64 } from '@cuda-js/core';
import { DeviceArray } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { JitError, KernelArgumentError } from '../errors.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { parseGufuncLayout } from './gufunc-layout.js';
import { guvectorize } from './guvectorize.js';

const simulator = { target: 'simulator' } as const;

/** A host view of `values` with `shape` (C order). */
function hostArray(
  values: ArrayLike<number>,
  shape: readonly number[],
  dtype: 'float32' | 'float64' = 'float64',
): StridedMemoryView {
  const ctor = dtype === 'float32' ? Float32Array : Float64Array;
  return StridedMemoryView.fromBuffer(ctor.from(values), { dtype, shape });
}

const elements = (v: unknown): number[] =>
  Array.from((v instanceof StridedMemoryView ? v.toTypedArray() : v) as ArrayLike<number>, Number);

// numba's documented example: '(n),()->(n)', adding a scalar to each row
const addScalar = (x: Float64Array, y: number, res: Float64Array): void => {
  for (let i = 0; i < x.length; i++) res[i] = x[i]! + y;
};

// numba's matrix multiply: '(m,n),(n,p)->(m,p)'
type Matrix = {
  get(i: number, j: number): number;
  set(i: number, j: number, v: number): void;
  readonly shape: readonly number[];
};
const matmul = (a: Matrix, b: Matrix, c: Matrix): void => {
  const m = a.shape[0]!;
  const n = a.shape[1]!;
  const p = b.shape[1]!;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a.get(i, k) * b.get(k, j);
      c.set(i, j, s);
    }
  }
};

describe('the layout string', () => {
  it('reads inputs and outputs with their core dimensions', () => {
    expect(parseGufuncLayout('(n),()->(n)')).toMatchObject({ inputs: [['n'], []], outputs: [['n']] });
    expect(parseGufuncLayout(' (m, n) , (n,p) -> (m,p) ')).toMatchObject({
      inputs: [
        ['m', 'n'],
        ['n', 'p'],
      ],
      outputs: [['m', 'p']],
    });
    expect(parseGufuncLayout('(n)->(),()')).toMatchObject({ inputs: [['n']], outputs: [[], []] });
  });

  it('refuses text that is not a layout, naming what is wrong', () => {
    expect(() => parseGufuncLayout('(n),()')).toThrow(/expected inputs '->' outputs/);
    expect(() => parseGufuncLayout('(n),(1)->(n)')).toThrow(/'1' is not a dimension name/);
    expect(() => parseGufuncLayout('(n,n)->(n)')).toThrow(/named twice/);
    expect(() => parseGufuncLayout('(a,b,c)->()')).toThrow(/at most 2 per operand/);
    expect(() => parseGufuncLayout('n->(n)')).toThrow(/cannot read the inputs/);
  });
});

describe('guvectorize in the simulator', () => {
  it("numba's '(n),()->(n)': each row of a matrix plus a scalar, against plain JS", () => {
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    const x = hostArray(
      Array.from({ length: 12 }, (_, k) => k),
      [3, 4],
    );
    const r = g(x, 10) as StridedMemoryView;
    expect(r.shape).toEqual([3, 4]);
    expect(elements(r)).toEqual(Array.from({ length: 12 }, (_, k) => k + 10));
    // a 1-D input is one loop element; the result is a typed array
    const one = g(Float64Array.from([1, 2, 3]), 0.5);
    expect(one).toBeInstanceOf(Float64Array);
    expect(elements(one)).toEqual([1.5, 2.5, 3.5]);
  });

  it('broadcasts the loop dimensions: a scalar per row from an array, a core input shared by every row', () => {
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    const x = hostArray([1, 2, 3, 4, 5, 6], [2, 3]);
    expect(elements(g(x, Float64Array.from([100, 200])))).toEqual([101, 102, 103, 204, 205, 206]);
    const shared = Float64Array.from([1, 2, 3]);
    expect(elements(g(shared, Float64Array.from([10, 20])))).toEqual([11, 12, 13, 21, 22, 23]);
    expect(() => g(x, Float64Array.from([1, 2, 3]))).toThrow(KernelArgumentError);
  });

  it("numba's matrix multiply '(m,n),(n,p)->(m,p)' over a batch, against plain JS", () => {
    const g = guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'], '(m,n),(n,p)->(m,p)', matmul, simulator);
    const batch = 4;
    const a = hostArray(
      Array.from({ length: batch * 2 * 3 }, (_, k) => (k % 7) - 3),
      [batch, 2, 3],
      'float32',
    );
    const b = hostArray(
      Array.from({ length: batch * 3 * 2 }, (_, k) => (k % 5) - 2),
      [batch, 3, 2],
      'float32',
    );
    const c = g(a, b) as StridedMemoryView;
    expect(c.shape).toEqual([batch, 2, 2]);
    const av = elements(a);
    const bv = elements(b);
    const expected: number[] = [];
    for (let q = 0; q < batch; q++) {
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 2; j++) {
          let s = 0;
          for (let k = 0; k < 3; k++) s += av[q * 6 + i * 3 + k]! * bv[q * 6 + k * 2 + j]!;
          expected.push(s);
        }
      }
    }
    expect(elements(c)).toEqual(expected);
    expect(() => g(a, hostArray([1, 2, 3, 4], [1, 2, 2], 'float32'))).toThrow(
      /core dimension 'n' is 3 in one input and 2 in input 2/,
    );
  });

  it('a given out (positional, as numba, or { out }), several outputs, and a scalar output written at 0', () => {
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    const out = new Float64Array(3);
    expect(g(Float64Array.from([1, 2, 3]), 1, out)).toBe(out);
    expect([...out]).toEqual([2, 3, 4]);
    const out2 = new Float64Array(3);
    expect(g(Float64Array.from([1, 2, 3]), 2, { out: out2 })).toBe(out2);
    expect([...out2]).toEqual([3, 4, 5]);
    expect(() => g(Float64Array.from([1, 2, 3]), 2, { out: new Float64Array(4) })).toThrow(
      /out has shape \[4\]; the inputs give \[3\]/,
    );
    const stats = guvectorize(
      ['void(float64[:], float64[:], float64[:])'],
      '(n)->(),()',
      (x: Float64Array, sum: Float64Array, max: Float64Array) => {
        let s = 0;
        let m = -Infinity;
        for (let i = 0; i < x.length; i++) {
          s += x[i]!;
          m = Math.max(m, x[i]!);
        }
        sum[0] = s;
        max[0] = m;
      },
      simulator,
    );
    const [sums, maxes] = stats(hostArray([1, 5, 2, 7, 3, 0], [2, 3])) as [Float64Array, Float64Array];
    expect([...sums]).toEqual([8, 10]);
    expect([...maxes]).toEqual([5, 7]);
  });

  it('device arrays in give a DeviceArray out; the stream option is taken', () => {
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    const x = new DeviceArray(hostArray([1, 2, 3, 4], [2, 2]));
    const r = g(x, f64(1), { stream: undefined });
    expect(r).toBeInstanceOf(DeviceArray);
    expect(elements((r as DeviceArray).view)).toEqual([2, 3, 4, 5]);
  });

  it('scalar element inputs are converted to the signature type; core inputs must have its dtype', () => {
    const g = guvectorize(['void(float32[:], float32, float32[:])'], '(n),()->(n)', addScalar as never, simulator);
    expect(elements(g(Float32Array.from([1, 2]), f32(0.5)))).toEqual([1.5, 2.5]);
    const wide = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    expect(elements(wide(Float64Array.from([1, 2]), f32(0.5)))).toEqual([1.5, 2.5]);
    expect(() => wide(Float32Array.from([1, 2]), 0.5)).toThrow(
      /input 1 holds f32; the signature 'void\(float64\[:\], float64, float64\[:\]\)' takes f64 \(arrays with core dimensions are passed as they are: convert it\)/,
    );
  });

  it('refuses what does not fit: counts, result types, scalars for core inputs', () => {
    expect(() => guvectorize(['void(float64[:], float64, float64[:])'], '(n)->(n)', addScalar, simulator)).toThrow(
      /takes 3 argument\(s\); the layout '\(n\)->\(n\)' has 1 input\(s\) and 1 output\(s\)/,
    );
    expect(() =>
      guvectorize(['float64(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator),
    ).toThrow(/has a result type/);
    expect(() => guvectorize([], '(n),()->(n)', addScalar, simulator)).toThrow(JitError);
    expect(() => guvectorize(['void(float64, float64, float64[:])'], '(n),()->(n)', addScalar, simulator)).toThrow(
      /input 1 of 'void\(float64, float64, float64\[:\]\)' is a scalar type; the layout gives it 1 core dimension\(s\): write float32\[:\]/,
    );
    expect(() => guvectorize(['void(float64[:], float64, float64)'], '(n),()->()', addScalar, simulator)).toThrow(
      /output 1 of .* is a scalar type; outputs are arrays/,
    );
    expect(() =>
      guvectorize(['void(float64[:, :], float64, float64[:])'], '(n),()->(n)', addScalar, simulator),
    ).toThrow(/argument 1 of .* has 2 dimension\(s\); the layout '\(n\),\(\)->\(n\)' gives it 1/);
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    expect(() => g(1, 2)).toThrow(/input 1 is a scalar; the layout '\(n\),\(\)->\(n\)' gives it 1 core dimension/);
  });
});

describeWhen(compileRequirements, 'guvectorize through libNVVM and ptxas', () => {
  it('the row kernel and the batched matrix multiply compile for sm_90', () => {
    const g = guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)', addScalar, simulator);
    g(hostArray([1, 2, 3, 4], [2, 2]), 1);
    const mm = guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'], '(m,n),(n,p)->(m,p)', matmul, simulator);
    mm(hostArray([1, 2, 3, 4], [1, 2, 2], 'float32'), hostArray([1, 0, 0, 1], [1, 2, 2], 'float32'));
    for (const kernel of [...g.kernels.values(), ...mm.kernels.values()]) {
      for (const spec of kernel.specializations.values()) compileAndAssemble(spec.typed);
    }
    expect(g.kernels.size + mm.kernels.size).toBe(2);
  });
});
