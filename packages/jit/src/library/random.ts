// Random numbers in kernels, numba's `cuda.random` written in the kernel
// language: device functions over xoroshiro128+ states made on the host by
// createXoroshiro128pStates. The draws are numba-cuda's, bit for bit: the
// same generator step, the same conversion to [0, 1), the same Box-Muller
// transform (with f32 uniform draws for both normal functions, as numba's).
import { cuda } from '../cuda.js';
import { libraryDevice as device } from '../device-function.js';

// The casts are cuda's (`cuda.f32(x)`), typed as the numbers (and bigints)
// they give inside kernels. The device functions the kernels call are
// declared, not bound here: they are the kernels' constants. (A declared
// `cuda` or `f32` would be a global reference that makes a scope-hoisting
// bundler rename the package's own export, `cuda$1`.)
declare const unitFloat64: (x: bigint) => number;
declare const next: (states: BigUint64Array, index: number) => bigint;
declare const uniform32: (states: BigUint64Array, index: number) => number;

const TWO_PI = 2 * Math.PI;

/** Draws the next u64 of generator `index` and advances its state (`states[2 index]`, `states[2 index + 1]`). */
export const xoroshiro128p_next = device(
  (states: BigUint64Array, index: number): bigint => {
    const at = index * 2;
    const s0 = states[at]!;
    let s1 = states[at + 1]!;
    const result = s0 + s1;
    s1 ^= s0;
    states[at] = ((s0 << cuda.u64(55)) | (s0 >> cuda.u64(9))) ^ s1 ^ (s1 << cuda.u64(14));
    states[at + 1] = (s1 << cuda.u64(36)) | (s1 >> cuda.u64(28));
    return result;
  },
  { name: 'xoroshiro128p_next' },
);

/** A u64's top 53 bits as an f64 in [0, 1). */
const uint64ToUnitFloat64 = device((x: bigint): number => cuda.f64(x >> cuda.u64(11)) * (1 / 9007199254740992), {
  name: 'uint64_to_unit_float64',
});

/** An f32 in [0, 1) from generator `index`. */
export const xoroshiro128p_uniform_float32 = device(
  (states: BigUint64Array, index: number): number => cuda.f32(unitFloat64(next(states, index))),
  {
    name: 'xoroshiro128p_uniform_float32',
    constants: { unitFloat64: uint64ToUnitFloat64, next: xoroshiro128p_next },
  },
);

/** An f64 in [0, 1) from generator `index`. */
export const xoroshiro128p_uniform_float64 = device(
  (states: BigUint64Array, index: number): number => unitFloat64(next(states, index)),
  {
    name: 'xoroshiro128p_uniform_float64',
    constants: { unitFloat64: uint64ToUnitFloat64, next: xoroshiro128p_next },
  },
);

/** A standard normal f32 (Box-Muller, two draws) from generator `index`. */
export const xoroshiro128p_normal_float32 = device(
  (states: BigUint64Array, index: number): number => {
    const u1 = uniform32(states, index);
    const u2 = uniform32(states, index);
    return Math.sqrt(cuda.f32(-2) * Math.log(u1)) * Math.cos(cuda.f32(TWO_PI) * u2);
  },
  { name: 'xoroshiro128p_normal_float32', constants: { uniform32: xoroshiro128p_uniform_float32, TWO_PI } },
);

/** A standard normal f64 from generator `index` (two f32 draws, as numba's). */
export const xoroshiro128p_normal_float64 = device(
  (states: BigUint64Array, index: number): number => {
    const u1 = uniform32(states, index);
    const u2 = uniform32(states, index);
    return Math.sqrt(cuda.f64(-2) * Math.log(u1)) * Math.cos(cuda.f64(TWO_PI) * u2);
  },
  { name: 'xoroshiro128p_normal_float64', constants: { uniform32: xoroshiro128p_uniform_float32, TWO_PI } },
);
