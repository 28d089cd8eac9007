// Host-side state creation for the xoroshiro128+ generators of
// `./random.ts`, equivalent to numba-cuda's create_xoroshiro128p_states:
// state 0 is seeded by one SplitMix64 step (s0 = s1 = z), then jumped
// `subsequenceStart` times; state i is state i-1 jumped once (2^64 draws
// ahead), so no two generators overlap for 2^64 draws.
//
// The u64 arithmetic runs on pairs of u32 halves in plain numbers: the jump
// is 128 generator steps per state, and BigInt would make a million states
// take minutes instead of about a second.

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

export interface Xoroshiro128pStatesOptions {
  /** Jumps state 0 this many times 2^64 draws ahead first (numba's `subsequence_start`). Default 0. */
  readonly subsequenceStart?: number;
}

/**
 * `n` independent xoroshiro128+ generator states for kernels, as numba's
 * `create_xoroshiro128p_states(n, seed)` makes them: a BigUint64Array of
 * `2n` values, state i at `[2i]` (s0) and `[2i + 1]` (s1) — numba's
 * `xoroshiro128p_dtype` layout. Copy it to the device, or pass it to a
 * kernel as it is (a host array is copied for the launch).
 *
 * @throws {RangeError} for a negative or fractional `n`, a seed outside u64, or a bad `subsequenceStart`
 */
export function createXoroshiro128pStates(n: number, seed: number | bigint, options: Xoroshiro128pStatesOptions = {}): BigUint64Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`createXoroshiro128pStates: n must be a non-negative integer, got ${String(n)}`);
  const seed64 = typeof seed === 'bigint' ? seed : Number.isSafeInteger(seed) ? BigInt(seed) : undefined;
  if (seed64 === undefined || seed64 < 0n || seed64 >= 1n << 64n) throw new RangeError(`createXoroshiro128pStates: the seed must be an integer from 0 to 2^64 - 1, got ${String(seed)}`);
  const start = options.subsequenceStart ?? 0;
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`createXoroshiro128pStates: subsequenceStart must be a non-negative integer, got ${String(start)}`);
  const out = new BigUint64Array(2 * n);
  if (n === 0) return out;
  const words = new Uint32Array(out.buffer);
  const s = seeded(seed64);
  for (let j = 0; j < start; j++) jump(s);
  // little-endian: a u64's low half comes first
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  for (let i = 0; i < n; i++) {
    if (i > 0) jump(s);
    const w = 4 * i;
    words[w + (little ? 0 : 1)] = s[0];
    words[w + (little ? 1 : 0)] = s[1];
    words[w + (little ? 2 : 3)] = s[2];
    words[w + (little ? 3 : 2)] = s[3];
  }
  return out;
}
