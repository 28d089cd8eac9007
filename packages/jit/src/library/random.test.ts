import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import {
  xoroshiro128p_normal_float32,
  xoroshiro128p_uniform_float32,
  xoroshiro128p_uniform_float64,
} from './random.js';
import { createXoroshiro128pStates } from './xoroshiro128p-states.js';

// The reference: the generator on BigInt, and numba's conversions.
const M = (1n << 64n) - 1n;
function nextOf(states: BigUint64Array, i: number): bigint {
  const s0 = states[2 * i]!;
  let s1 = states[2 * i + 1]!;
  const result = (s0 + s1) & M;
  s1 ^= s0;
  states[2 * i] = (((s0 << 55n) | (s0 >> 9n)) & M) ^ s1 ^ ((s1 << 14n) & M);
  states[2 * i + 1] = ((s1 << 36n) | (s1 >> 28n)) & M;
  return result;
}
const unit64 = (x: bigint): number => Number(x >> 11n) * 2 ** -53;

describe('xoroshiro128+ draws in kernels (simulator)', () => {
  const draw = jit(
    (states: BigUint64Array, u32s: Float32Array, u64s: Float64Array, normals: Float32Array) => {
      const i = cuda.grid(1);
      if (i < u32s.length) {
        u32s[i] = uniform32(states, i);
        u64s[i] = uniform64(states, i);
        normals[i] = normal32(states, i);
      }
    },
    {
      target: 'simulator',
      constants: {
        uniform32: xoroshiro128p_uniform_float32,
        uniform64: xoroshiro128p_uniform_float64,
        normal32: xoroshiro128p_normal_float32,
      },
    },
  );

  it('gives numba-cuda draws: the generator step, [0, 1) conversions and Box-Muller, per state', () => {
    const n = 100;
    const states = createXoroshiro128pStates(n, 1234n);
    const reference = states.slice();
    const u32s = new Float32Array(n);
    const u64s = new Float64Array(n);
    const normals = new Float32Array(n);
    draw.launch({ grid: 1, block: 128 }, states, u32s, u64s, normals);
    const f = Math.fround;
    for (let i = 0; i < n; i++) {
      expect(u32s[i]).toBe(f(unit64(nextOf(reference, i))));
      expect(u64s[i]).toBe(unit64(nextOf(reference, i)));
      const a = f(unit64(nextOf(reference, i)));
      const b = f(unit64(nextOf(reference, i)));
      expect(normals[i]).toBe(f(f(Math.sqrt(f(-2 * Math.log(a)))) * f(Math.cos(f(f(2 * Math.PI) * b)))));
    }
    expect([...states]).toEqual([...reference]); // the states advanced as the reference did
    const mean = u64s.reduce((s, v) => s + v, 0) / n;
    expect(mean).toBeGreaterThan(0.35);
    expect(mean).toBeLessThan(0.65);
  });
});

declare const uniform32: (states: BigUint64Array, i: number) => number;
declare const uniform64: (states: BigUint64Array, i: number) => number;
declare const normal32: (states: BigUint64Array, i: number) => number;
