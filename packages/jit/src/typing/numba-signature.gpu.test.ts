// Kernels declared in numba's text on a GPU: an any-strides signature
// ('float32[:]') compiled once and launched with compact device arrays and a
// strided view (the A-layout code reads the strides), a C-order 2-D one, and
// the results checked against plain JS.
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda, jit, type KernelArray, toDevice } from '../index.js';

describeGpu("numba's signature text on a GPU", () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
  });

  it("runs a kernel declared 'void(float32, float32[:], float32[:])' on compact arrays and on a strided view, one specialization", () => {
    const axpy = jit(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]! + y[i]!;
      },
      { signatures: ['void(float32, float32[:], float32[:])'] },
    );
    const n = 1000;
    const xs = Float32Array.from({ length: 2 * n }, (_, i) => i);
    const x = toDevice(xs);
    const y = toDevice(new Float32Array(n).fill(1));
    axpy.launch({ grid: 4, block: 256 }, 0.5, x.slice([0, 2 * n, 2]), y);
    axpy.launch({ grid: 4, block: 256 }, 2, toDevice(xs.subarray(0, n)), y);
    const want = Array.from({ length: n }, (_, i) =>
      Math.fround(Math.fround(Math.fround(0.5 * (2 * i)) + 1) + Math.fround(2 * i)),
    );
    expect(Array.from(y.copyToHost() as Float32Array)).toEqual(want);
    expect([...axpy.specializations.keys()]).toEqual(["f32, array(f32, 1, 'A'), array(f32, 1, 'A')"]);
  });

  it("runs a C-order 2-D kernel declared 'void(int32[:, ::1])'", () => {
    const mark = jit(
      (m: KernelArray<'i32', 2>) => {
        const [r, c] = cuda.grid(2);
        if (r < m.shape[0] && c < m.shape[1]) m.set(r, c, r * 100 + c);
      },
      { signatures: ['void(int32[:, ::1])'] },
    );
    const m = toDevice(new Int32Array(12)).reshape([3, 4]);
    mark.launch({ grid: [1, 1], block: [8, 8] }, m);
    expect(Array.from(m.copyToHost() as Int32Array)).toEqual(
      Array.from({ length: 12 }, (_, i) => Math.floor(i / 4) * 100 + (i % 4)),
    );
    expect([...mark.specializations.keys()]).toEqual(["array(i32, 2, 'C')"]);
  });
});
