import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JitArgumentError, JitOptionError } from '../errors.js';
import { createXoroshiro128pStates } from './xoroshiro128p-states.js';

// An independent reference on BigInt, straight from the algorithm's definition.
const M = (1n << 64n) - 1n;
const rotl = (x: bigint, k: bigint): bigint => ((x << k) | (x >> (64n - k))) & M;

function referenceNext(s: [bigint, bigint]): bigint {
  const [s0, s1in] = s;
  const result = (s0 + s1in) & M;
  const s1 = s1in ^ s0;
  s[0] = rotl(s0, 55n) ^ s1 ^ ((s1 << 14n) & M);
  s[1] = rotl(s1, 36n);
  return result;
}

function referenceJump(s: [bigint, bigint]): void {
  let a = 0n;
  let b = 0n;
  for (const word of [0xbeac0467eba5facbn, 0xd86b048b86aa9922n]) {
    for (let bit = 0n; bit < 64n; bit++) {
      if ((word >> bit) & 1n) {
        a ^= s[0];
        b ^= s[1];
      }
      referenceNext(s);
    }
  }
  s[0] = a;
  s[1] = b;
}

function referenceStates(n: number, seed: bigint, start = 0): bigint[] {
  let z = (seed + 0x9e3779b97f4a7c15n) & M;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  z ^= z >> 31n;
  const s: [bigint, bigint] = [z, z];
  for (let j = 0; j < start; j++) referenceJump(s);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) referenceJump(s);
    out.push(s[0], s[1]);
  }
  return out;
}

describe('createXoroshiro128pStates', () => {
  it('seeds state 0 with one SplitMix64 step in both halves', () => {
    const [s0, s1] = createXoroshiro128pStates(1, 0);
    // SplitMix64's first output for state 0 (its published test value)
    expect(s0).toBe(0xe220a8397b1dcdafn);
    expect(s1).toBe(s0);
  });

  it('matches the BigInt reference for any seed, count and subsequence start', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: M }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 2 }),
        (seed, n, start) => {
          expect([...createXoroshiro128pStates(n, seed, { subsequenceStart: start })]).toEqual(
            referenceStates(n, seed, start),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives each state 2^64 draws apart: state 1 is state 0 jumped', () => {
    const states = createXoroshiro128pStates(3, 42n);
    const jumped = createXoroshiro128pStates(2, 42n, { subsequenceStart: 1 });
    expect([states[2], states[3], states[4], states[5]]).toEqual([...jumped]);
  });

  it('refuses bad counts and seeds with a JitArgumentError, a bad start with a JitOptionError, and makes nothing for n = 0', () => {
    expect(createXoroshiro128pStates(0, 1)).toHaveLength(0);
    for (const n of [-1, 1.5, Number.NaN, 2 ** 60])
      expect(() => createXoroshiro128pStates(n, 1)).toThrow(JitArgumentError);
    for (const seed of [-1, 0.5, 2 ** 64, -1n, 1n << 64n])
      expect(() => createXoroshiro128pStates(1, seed)).toThrow(JitArgumentError);
    expect(() => createXoroshiro128pStates(1, 1, { subsequenceStart: -1 })).toThrow(JitOptionError);
    expect(() => createXoroshiro128pStates(1, 1, { subsequenceStart: 0.5 })).toThrow(
      "createXoroshiro128pStates(): option 'subsequenceStart' must be a non-negative integer; got 0.5",
    );
  });
});

describe('createXoroshiro128pStates given hostile sizes (hostile input)', () => {
  it('property: a subsequenceStart of k gives state k of the sequence, by matrix powers past 128 jumps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (k, seed) => {
        const reference = createXoroshiro128pStates(k + 1, seed);
        const started = createXoroshiro128pStates(1, seed, { subsequenceStart: k });
        expect([started[0], started[1]]).toEqual([reference[2 * k], reference[2 * k + 1]]);
      }),
      { seed: 31, numRuns: 40 },
    );
  });

  it('jumps a subsequenceStart of 2^50 at once (one jump at a time never ended), consistent with the jump after it', () => {
    const a = createXoroshiro128pStates(2, 7, { subsequenceStart: 2 ** 50 });
    const b = createXoroshiro128pStates(1, 7, { subsequenceStart: 2 ** 50 + 1 });
    expect([a[2], a[3]]).toEqual([b[0], b[1]]);
  });

  it('names an n too large to allocate (was an engine RangeError)', () => {
    expect(() => createXoroshiro128pStates(2 ** 40, 1)).toThrow(JitArgumentError);
    expect(() => createXoroshiro128pStates(2 ** 40, 1)).toThrow(
      /createXoroshiro128pStates: 1099511627776 states are .* bytes, which cannot be allocated/,
    );
  });
});
