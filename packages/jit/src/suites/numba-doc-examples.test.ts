// numba-cuda's documented examples, ported as a numba user would write them,
// each checked against a plain-JS reference, in the simulator: every example
// of numba-doc-examples.test-support.ts (docs/numba-doc-examples.md lists
// them), and a few first ports kept here. laplace and sessionize run in
// numba-examples-barriers.test.ts. An example that needs a feature cuda-js
// lacks is skipped with the feature named.
import { f32 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import { deviceArrayLike, toDevice } from '../library/device-arrays.js';
import { createXoroshiro128pStates } from '../library/xoroshiro128p-states.js';
import { xoroshiro128p_uniform_float32 } from '../library/random.js';
import { reduce } from '../library/reduce.js';
import { vectorize } from '../library/vectorize.js';
import { DOC_EXAMPLES } from './numba-doc-examples.test-support.js';

const target = 'simulator';

describe("numba-cuda's documented examples in the simulator", () => {
  for (const example of DOC_EXAMPLES) {
    it(example.name, async (context) => {
      if (example.run === undefined) {
        console.log(`pending: ${example.name}: needs ${example.pending}`);
        context.skip(`needs ${example.pending}`);
        return;
      }
      await example.run({ target, gpu: false });
    }); // the unit project's timeout: a 30 s one here was tighter than it, on a loaded machine
  }
});

describe('first ports in the simulator', () => {
  it('vecadd: c = a + b with to_device, device_array_like and copy_to_host', () => {
    const f = jit(
      (a: Float32Array, b: Float32Array, c: Float32Array) => {
        const tid = cuda.grid(1);
        const size = c.length;
        if (tid < size) c[tid] = a[tid]! + b[tid]!;
      },
      { target },
    );
    const N = 1000;
    const a = toDevice(
      Float32Array.from({ length: N }, (_, i) => Math.sin(i)),
      { target },
    );
    const b = toDevice(
      Float32Array.from({ length: N }, (_, i) => Math.cos(i)),
      { target },
    );
    const c = deviceArrayLike(a, { target });
    f.forall(N)(a, b, c);
    const got = c.copyToHost() as Float32Array;
    const ha = a.copyToHost() as Float32Array;
    const hb = b.copyToHost() as Float32Array;
    expect(Array.from(got)).toEqual(Array.from(ha, (x, i) => Math.fround(x + hb[i]!)));
  });

  it('ufunc: @vectorize with a signature list, called on arrays and a scalar', () => {
    const fma = vectorize(['float32(float32, float32, float32)'], (x: number, y: number, z: number) => x * y + z, {
      target,
    });
    const x = Float32Array.from({ length: 64 }, (_, i) => i / 8);
    const got = fma(x, f32(2), x) as Float32Array;
    expect(Array.from(got)).toEqual(Array.from(x, (v) => Math.fround(Math.fround(v * 2) + v)));
  });

  it('reduction: cuda.reduce of a sum, with init', () => {
    const sumReduce = reduce((a: number, b: number) => a + b, { target });
    const A = Float64Array.from({ length: 1234 }, (_, i) => i);
    expect(sumReduce(A)).toBe((1233 * 1234) / 2);
    expect(sumReduce(A, { init: 10 })).toBe((1233 * 1234) / 2 + 10);
  });

  it('random: xoroshiro128p uniform draws fill an array in [0, 1), each thread its own stream', () => {
    const compute = jit(
      (rng: BigUint64Array, out: Float32Array) => {
        const i = cuda.grid(1);
        if (i < out.length) out[i] = uniform(rng, i);
      },
      { target, constants: { uniform: xoroshiro128p_uniform_float32 } },
    );
    const n = 256;
    const states = createXoroshiro128pStates(n, 1);
    const out = new Float32Array(n);
    compute.launch({ grid: 1, block: n }, states, out);
    expect(out.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(out).size).toBeGreaterThan(n - 4);
  });
});

declare const uniform: (states: BigUint64Array, i: number) => number;
