// numba-cuda's documented examples on the GPU: every example of
// numba-doc-examples.test-support.ts at numba's own sizes, against its
// plain-JS reference (laplace and sessionize: numba-examples-barriers.gpu.test.ts),
// and the first ports kept here. An example that needs a feature cuda-js
// lacks is skipped with the feature named.
import { Device, f32 } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import { deviceArrayLike, toDevice } from '../library/device-arrays.js';
import { reduce } from '../library/reduce.js';
import { vectorize } from '../library/vectorize.js';
import { DOC_EXAMPLES } from './numba-doc-examples.test-support.js';

describeGpu("numba-cuda's documented examples on the GPU", () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
  });

  for (const example of DOC_EXAMPLES) {
    it(example.name, async (context) => {
      if (example.run === undefined) {
        console.log(`pending: ${example.name}: needs ${example.pending}`);
        context.skip(`needs ${example.pending}`);
        return;
      }
      await example.run({ target: 'gpu', gpu: true });
    });
  }

  it('vecadd: c = a + b with to_device, device_array_like and copy_to_host', () => {
    const f = jit((a: Float32Array, b: Float32Array, c: Float32Array) => {
      const tid = cuda.grid(1);
      const size = c.length;
      if (tid < size) c[tid] = a[tid]! + b[tid]!;
    });
    const N = 100_000;
    const ha = Float32Array.from({ length: N }, (_, i) => Math.sin(i));
    const hb = Float32Array.from({ length: N }, (_, i) => Math.cos(i));
    using a = toDevice(ha);
    using b = toDevice(hb);
    using c = deviceArrayLike(a);
    f.forall(N)(a, b, c);
    expect(Array.from(c.copyToHost() as Float32Array)).toEqual(Array.from(ha, (x, i) => Math.fround(x + hb[i]!)));
  });

  it('ufunc: @vectorize with a signature list, on host arrays and a scalar', () => {
    const fma = vectorize(['float32(float32, float32, float32)'], (x: number, y: number, z: number) => x * y + z, {
      fma: false,
    });
    const x = Float32Array.from({ length: 4096 }, (_, i) => i / 8);
    expect(Array.from(fma(x, f32(2), x) as Float32Array)).toEqual(
      Array.from(x, (v) => Math.fround(Math.fround(v * 2) + v)),
    );
  });

  it('reduction: cuda.reduce of a sum, with init', () => {
    const sumReduce = reduce((a: number, b: number) => a + b);
    const A = Float64Array.from({ length: 1 << 16 }, (_, i) => i);
    expect(sumReduce(A)).toBe(((1 << 16) - 1) * (1 << 15));
    expect(sumReduce(A, { init: 10 })).toBe(((1 << 16) - 1) * (1 << 15) + 10);
  });
});
