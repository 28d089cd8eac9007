// The per-call-site shortcut of a JIT launch's typing: arguments of the last
// launch's kinds choose its specialization with no type work. It must never
// say "same" where typing the arguments in full would give other types.
import { f32, i32, i64 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgumentKinds } from './argument-kinds.js';
import { argumentTypes } from './argument-types.js';

const f32s = new Float32Array(8);
const i32s = new Int32Array(8);
const view = StridedMemoryView.fromTypedArray(new Float64Array(6)).view({ shape: [2, 3] });
const closed = StridedMemoryView.fromTypedArray(new Float32Array(4));
closed.close();
const ndarray = { data: new Float32Array(4), shape: [4], strides: [1], offset: 0, dtype: 'float32' };

describe('ArgumentKinds', () => {
  it('says "same" for the same primitive kinds, scalar types, views and typed arrays, and nothing else', () => {
    const kinds = new ArgumentKinds();
    expect(kinds.same([1])).toBe(false); // nothing remembered
    kinds.remember([1, 2n, true, f32(1), f32s, view]);
    expect(kinds.same([5.5, -1n, false, f32(3), f32s, view])).toBe(true);
    expect(kinds.same([5.5, -1n, false, f32(3), f32s])).toBe(false); // count
    expect(kinds.same([1n, 2n, true, f32(1), f32s, view])).toBe(false); // number → bigint
    expect(kinds.same([1, 2n, true, i32(1), f32s, view])).toBe(false); // f32 → i32
    expect(kinds.same([1, 2n, true, f32(1), new Float32Array(8), view])).toBe(false); // another array: typed again
    kinds.remember([ndarray, closed]);
    expect(kinds.same([ndarray, closed])).toBe(false); // a protocol-ish object and a closed view are typed again
  });

  it('never says "same" where the full typing differs (fast-check)', () => {
    const pool: unknown[] = [
      0,
      1.5,
      -3,
      7n,
      0n,
      true,
      false,
      f32(1),
      f32(2),
      i32(4),
      i64(5n),
      f32s,
      i32s,
      new Float32Array(2),
      view,
      ndarray,
    ];
    const args = fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(args, args, (before, after) => {
        const kinds = new ArgumentKinds();
        kinds.remember(before);
        if (!kinds.same(after)) return;
        const names = after.map((_, i) => `a${i}`);
        expect(argumentTypes(after, names, 'simulator')).toEqual(argumentTypes(before, names, 'simulator'));
      }),
      { seed: 23, numRuns: 500 },
    );
  });
});
