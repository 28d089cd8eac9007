// Issue 20: the disk cache keyed on Object.entries(constants) while the typer read constants[name],
// so a non-enumerable constant, a getter or a Proxy with empty ownKeys served a stale kernel (got 5, want 6).
import { describe, expect, it } from 'vitest';
import { kernelSourceKey } from './compile/kernel-cache.js';
import { snapshotConstants } from './constants-snapshot.js';
import { JitError, JitOptionError } from './errors.js';
import { jit } from './index.js';

const keyOf = (constants: Readonly<Record<string, never>>) =>
  kernelSourceKey({ source: 'k', constants, signature: 's', symbol: 'k', options: {} });

describe('one snapshot of the constants', () => {
  it('reads non-enumerable properties and getters once, and keys on exactly what it read', () => {
    const hidden = Object.defineProperty({}, 'N', { value: 5, enumerable: false });
    const other = Object.defineProperty({}, 'N', { value: 6, enumerable: false });
    expect(snapshotConstants(hidden, 'jit')).toEqual({ N: 5 });
    expect(keyOf(snapshotConstants(hidden, 'jit') as never)).not.toBe(keyOf(snapshotConstants(other, 'jit') as never));
    let reads = 0;
    const getter = {
      get N() {
        reads++;
        return reads;
      },
    };
    const snapshot = snapshotConstants(getter, 'jit');
    expect(reads).toBe(1);
    expect(snapshot['N']).toBe(1);
    expect(snapshot['N']).toBe(1); // the snapshot, not the getter
    expect(Object.isFrozen(snapshot)).toBe(true);
  });

  it('sees only what a Proxy reports, so the typer and the key agree', () => {
    const hiding = new Proxy({ N: 5 }, { ownKeys: () => [] });
    expect(snapshotConstants(hiding, 'jit')).toEqual({});
    expect(() => snapshotConstants(5, 'jit')).toThrow(JitError);
  });

  it('names bad jit options instead of an engine error', () => {
    const fn = (a: Float32Array) => {
      a[0] = 1;
    };
    expect(() => jit(fn, null as never)).toThrow(JitOptionError);
    expect(() => jit(fn, null as never)).toThrow(/jit\(\): the options must be a plain object; got null/);
    expect(() => jit(fn, { name: 5 } as never)).toThrow(/jit\(\): option 'name' must be a string; got 5/);
    expect(() => jit(fn, { constants: 7 } as never)).toThrow(/jit: constants must be an object/);
  });
});
