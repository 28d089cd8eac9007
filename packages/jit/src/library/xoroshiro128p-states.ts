// Host-side state creation for the xoroshiro128+ generators of
// `./random.ts`, equivalent to numba-cuda's create_xoroshiro128p_states:
// state 0 is seeded by one SplitMix64 step (s0 = s1 = z), then jumped
// `subsequenceStart` times; state i is state i-1 jumped once (2^64 draws
// ahead), so no two generators overlap for 2^64 draws.
//
// The u64 arithmetic runs on pairs of u32 halves in plain numbers (BigInt
// would make a million states take minutes). The generator's step is linear
// over GF(2) (xors, shifts and rotations of the 128 state bits), so the jump
// is a 128×128 bit matrix: its columns are the jumps of the 128 unit states,
// made once with the 128-step jump below, and kept as 16 tables of 256
// entries, one per byte of the state (the xor of the columns of that byte's
// set bits). A jump is then 16 table reads and 64 xors instead of 128 steps.

const MASK32 = 0xffffffff;
const JUMP: readonly number[] = [0xeba5facb, 0xbeac0467, 0x86aa9922, 0xd86b048b]; // 0xbeac0467eba5facb, 0xd86b048b86aa9922 as (lo, hi) pairs

/** One generator's state as u32 halves: s0 (lo, hi), s1 (lo, hi). */
type State = [number, number, number, number];

/** One xoroshiro128+ step on `s` in place (the drawn value is not needed here). */
function step(s: State): void {
  const [a0, a1, b0, b1] = s;
  // s1 ^= s0
  const x0 = (b0 ^ a0) >>> 0;
  const x1 = (b1 ^ a1) >>> 0;
  // rotl(s0, 55) = (s0 << 55) | (s0 >>> 9)
  const r0 = ((a0 >>> 9) | (a1 << 23)) >>> 0;
  const r1 = ((a1 >>> 9) | (a0 << 23)) >>> 0;
  // s1 << 14
  const l0 = (x0 << 14) >>> 0;
  const l1 = ((x1 << 14) | (x0 >>> 18)) >>> 0;
  s[0] = (r0 ^ x0 ^ l0) >>> 0;
  s[1] = (r1 ^ x1 ^ l1) >>> 0;
  // rotl(s1, 36) = swap halves, then rotl by 4
  s[2] = ((x1 << 4) | (x0 >>> 28)) >>> 0;
  s[3] = ((x0 << 4) | (x1 >>> 28)) >>> 0;
}

/** Advances `s` by 2^64 steps. */
function jump(s: State): void {
  let a0 = 0;
  let a1 = 0;
  let b0 = 0;
  let b1 = 0;
  for (const word of JUMP) {
    for (let bit = 0; bit < 32; bit++) {
      if ((word >>> bit) & 1) {
        a0 ^= s[0];
        a1 ^= s[1];
        b0 ^= s[2];
        b1 ^= s[3];
      }
      step(s);
    }
  }
  s[0] = a0 >>> 0;
  s[1] = a1 >>> 0;
  s[2] = b0 >>> 0;
  s[3] = b1 >>> 0;
}

/** Entries per byte table: 4 words (s0 lo, hi, s1 lo, hi) for each of 256 byte values. */
const TABLE_STRIDE = 256 * 4;
let jumpTables: Uint32Array | undefined;

/** The 16 byte tables of the jump matrix (64 KiB), made on first use. */
function tables(): Uint32Array {
  if (jumpTables !== undefined) return jumpTables;
  const t = new Uint32Array(16 * TABLE_STRIDE);
  for (let byte = 0; byte < 16; byte++) {
    const base = byte * TABLE_STRIDE;
    // columns of this byte's 8 bits: the jump of the state with only that bit set
    const columns: State[] = [];
    for (let bit = 0; bit < 8; bit++) {
      const s: State = [0, 0, 0, 0];
      s[byte >> 2] = (1 << ((byte & 3) * 8 + bit)) >>> 0;
      jump(s);
      columns.push(s);
    }
    // entry v = entry (v without its lowest set bit) xor the column of that bit
    for (let v = 1; v < 256; v++) {
      const low = 31 - Math.clz32(v & -v);
      const rest = base + (v & (v - 1)) * 4;
      const c = columns[low]!;
      const e = base + v * 4;
      t[e] = (t[rest]! ^ c[0]) >>> 0;
      t[e + 1] = (t[rest + 1]! ^ c[1]) >>> 0;
      t[e + 2] = (t[rest + 2]! ^ c[2]) >>> 0;
      t[e + 3] = (t[rest + 3]! ^ c[3]) >>> 0;
    }
  }
  return (jumpTables = t);
}

/** Advances `s` by 2^64 steps through the byte tables (the same result as {@link jump}). */
function tableJump(s: State, t: Uint32Array): void {
  let a0 = 0;
  let a1 = 0;
  let b0 = 0;
  let b1 = 0;
  for (let w = 0; w < 4; w++) {
    const word = s[w as 0 | 1 | 2 | 3];
    for (let k = 0; k < 4; k++) {
      const e = (w * 4 + k) * TABLE_STRIDE + ((word >>> (k * 8)) & 255) * 4;
      a0 ^= t[e]!;
      a1 ^= t[e + 1]!;
      b0 ^= t[e + 2]!;
      b1 ^= t[e + 3]!;
    }
  }
  s[0] = a0 >>> 0;
  s[1] = a1 >>> 0;
  s[2] = b0 >>> 0;
  s[3] = b1 >>> 0;
}

/** The jump as a 128×128 matrix over GF(2): column i is the jump of unit vector i. */
type JumpMatrix = State[];

/** `m` applied to `s` (the xor of the columns of the bits set in `s`). */
function applyMatrix(m: JumpMatrix, s: State): State {
  const out: State = [0, 0, 0, 0];
  for (let i = 0; i < 128; i++) {
    if ((s[i >> 5]! >>> (i & 31)) & 1) {
      const c = m[i]!;
      out[0] = (out[0] ^ c[0]) >>> 0;
      out[1] = (out[1] ^ c[1]) >>> 0;
      out[2] = (out[2] ^ c[2]) >>> 0;
      out[3] = (out[3] ^ c[3]) >>> 0;
    }
  }
  return out;
}

/** `a · b`: `b` first, then `a`. */
function multiply(a: JumpMatrix, b: JumpMatrix): JumpMatrix {
  return b.map((column) => applyMatrix(a, column));
}

let jumpMatrix: JumpMatrix | undefined;

/**
 * Advances `s` by `count` jumps (count · 2^64 steps) in O(log count)
 * matrix products: a `subsequenceStart` of 2^50 jumped one at a time took
 * days. Where `count` is small, one table jump at a time is cheaper.
 */
function jumpTimes(s: State, count: number, t: Uint32Array): void {
  if (count <= 128) {
    for (let j = 0; j < count; j++) tableJump(s, t);
    return;
  }
  jumpMatrix ??= Array.from({ length: 128 }, (_, i) => {
    const unit: State = [0, 0, 0, 0];
    unit[i >> 5] = (1 << (i & 31)) >>> 0;
    tableJump(unit, t);
    return unit;
  });
  let power = jumpMatrix;
  let rest = count;
  let state: State = [s[0], s[1], s[2], s[3]];
  while (rest > 0) {
    if (rest % 2 === 1) state = applyMatrix(power, state);
    rest = Math.floor(rest / 2);
    if (rest > 0) power = multiply(power, power);
  }
  s[0] = state[0];
  s[1] = state[1];
  s[2] = state[2];
  s[3] = state[3];
}

/** SplitMix64 of `seed`, once: the state's both halves. */
function seeded(seed: bigint): State {
  const m = (1n << 64n) - 1n;
  let z = (seed + 0x9e3779b97f4a7c15n) & m;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & m;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & m;
  z ^= z >> 31n;
  const lo = Number(z & BigInt(MASK32));
  const hi = Number(z >> 32n);
  return [lo, hi, lo, hi];
}

import type { OptionTableOf } from '@cuda-js/options';
import { JitArgumentError } from '../errors.js';
import { checkJitOptions } from '../jit-options.js';

export interface Xoroshiro128pStatesOptions {
  /** Jumps state 0 this many times 2^64 draws ahead first (numba's `subsequence_start`). Default 0. */
  readonly subsequenceStart?: number | undefined;
}

const XOROSHIRO_OPTIONS = {
  subsequenceStart: (v: unknown) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? undefined : 'a non-negative integer',
} satisfies OptionTableOf<Xoroshiro128pStatesOptions>;

/**
 * `n` independent xoroshiro128+ generator states for kernels, as numba's
 * `create_xoroshiro128p_states(n, seed)` makes them: a BigUint64Array of
 * `2n` values, state i at `[2i]` (s0) and `[2i + 1]` (s1) — numba's
 * `xoroshiro128p_dtype` layout. Copy it to the device, or pass it to a
 * kernel as it is (a host array is copied for the launch).
 *
 * @throws {JitArgumentError} for a negative or fractional `n` (or one too large to allocate), or a seed outside u64
 * @throws {JitOptionError} for an unknown option or a bad `subsequenceStart`
 */
export function createXoroshiro128pStates(
  n: number,
  seed: number | bigint,
  options: Xoroshiro128pStatesOptions = {},
): BigUint64Array {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new JitArgumentError(`createXoroshiro128pStates: n must be a non-negative integer, got ${String(n)}`);
  const seed64 = typeof seed === 'bigint' ? seed : Number.isSafeInteger(seed) ? BigInt(seed) : undefined;
  if (seed64 === undefined || seed64 < 0n || seed64 >= 1n << 64n)
    throw new JitArgumentError(
      `createXoroshiro128pStates: the seed must be an integer from 0 to 2^64 - 1, got ${String(seed)}`,
    );
  const start =
    checkJitOptions<Xoroshiro128pStatesOptions>('createXoroshiro128pStates()', options, XOROSHIRO_OPTIONS)
      .subsequenceStart ?? 0;
  let out: BigUint64Array;
  try {
    out = new BigUint64Array(2 * n);
  } catch (error) {
    throw new JitArgumentError(
      `createXoroshiro128pStates: ${n} states are ${16 * n} bytes, which cannot be allocated (${(error as Error).message})`,
      undefined,
      { cause: error },
    );
  }
  if (n === 0) return out;
  const words = new Uint32Array(out.buffer);
  const s = seeded(seed64);
  const t = tables();
  jumpTimes(s, start, t);
  // little-endian: a u64's low half comes first
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  for (let i = 0; i < n; i++) {
    if (i > 0) tableJump(s, t);
    const w = 4 * i;
    words[w + (little ? 0 : 1)] = s[0];
    words[w + (little ? 1 : 0)] = s[1];
    words[w + (little ? 2 : 3)] = s[2];
    words[w + (little ? 3 : 2)] = s[3];
  }
  return out;
}
