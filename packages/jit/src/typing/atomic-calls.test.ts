import { u32 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { array } from './signature.js';
import { MarkedLines, nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);

describe('cuda.atomic', () => {
  it('on an array parameter: the element, the value converted to the dtype, the old value typed as the dtype', () => {
    const k = typed(
      (values: Int32Array, bins: Uint32Array, old: Uint32Array) => {
        const i = cuda.grid(1);
        old[i] = cuda.atomic.add(bins, values[i]!, 1);
      },
      [array('i32', 1), array('u32', 1), array('u32', 1)],
    );
    const atomic = onlyNodeOf(k.body, 'atomic');
    expect(withoutLocs(atomic)).toMatchObject({
      op: 'atomic',
      type: 'u32',
      fn: 'add',
      ref: { array: 1, indices: [{ op: 'convert', type: 'i64', operand: { op: 'load', type: 'i32' } }] },
      value: { op: 'const', type: 'u32', value: 1 },
    });
    expect(atomic.ref.space).toBeUndefined();
    expect(atomic.compare).toBeUndefined();
    expect(k.params[1]).toMatchObject({ use: { written: true } });
    expect(k.params[0]).toMatchObject({ use: { written: false } });
  });

  it('on shared and local arrays, n-D with an index list, every function, and cas with its expected value', () => {
    const k = typed(
      (x: Float64Array, out: BigUint64Array) => {
        const grid = cuda.shared.array([4, 4], u32);
        const mine = cuda.local.array(2, u32);
        const t = cuda.threadIdx.x;
        cuda.atomic.min(grid, [t >> 2, t & 3], x[t]!);
        cuda.atomic.inc(mine, 1, 10);
        out[0] = cuda.atomic.cas(out, 0, out[0]!, 5n);
      },
      [array('f64', 1), array('u64', 1)],
    );
    const [min, inc, cas] = nodesOf(k.body, 'atomic');
    expect(min).toMatchObject({
      fn: 'min',
      type: 'u32',
      ref: { space: 'shared', array: 0 },
      value: { op: 'convert', type: 'u32', operand: { type: 'f64' } },
    });
    expect(min!.ref.indices).toHaveLength(2);
    expect(inc).toMatchObject({
      fn: 'inc',
      type: 'u32',
      ref: { space: 'local', array: 1 },
      value: { op: 'const', type: 'u32', value: 10 },
    });
    expect(cas).toMatchObject({
      fn: 'cas',
      type: 'u64',
      ref: { array: 1 },
      compare: { op: 'load', type: 'u64' },
      value: { op: 'convert', type: 'u64', operand: { op: 'const', type: 'i64', value: 5n } },
    });
    expect(k.params[1]).toMatchObject({ use: { written: true } });
  });

  it('refuses dtypes the function does not take, naming the ones it does', () => {
    const error = typingError(
      (x: Float32Array) => {
        cuda.atomic.and(x, 0, 1); // A-dtype
      },
      [array('f32', 1)],
    );
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.detail).toBe("cuda.atomic.and works on arrays of i32, u32, i64, u64; 'x' is array(f32, 1, 'C')");
    here.expectAt(error, 'A-dtype', 'x, 0');
    expect(() =>
      typed(
        (x: Int32Array) => {
          cuda.atomic.inc(x, 0, 1);
        },
        [array('i32', 1)],
      ),
    ).toThrow(/cuda\.atomic\.inc works on arrays of u32, u64; 'x' is array\(i32, 1, 'C'\)/);
  });

  it('refuses read-only arrays, non-arrays and index lists of the wrong length', () => {
    expect(() =>
      typed(
        (x: Int32Array) => {
          cuda.atomic.add(x, 0, 1);
        },
        [array('i32', 1, 'C', { readonly: true })],
      ),
    ).toThrow(/'x' is read-only \(array\(i32, 1, 'C'\) readonly\); it cannot be written/);
    expect(() =>
      typed(
        (n: number) => {
          cuda.atomic.add(n as unknown as Int32Array, 0, 1);
        },
        ['i32'],
      ),
    ).toThrow(/cuda\.atomic\.add works on an element of an array/);
    const count = typingError(
      (m: Int32Array) => {
        cuda.atomic.add(m, 3, 1); // A-index
      },
      [array('i32', 2)],
    );
    expect(count.detail).toBe("'m' is array(i32, 2, 'C') (2-D): cuda.atomic.add takes [i, j] there, 1 given");
    here.expectAt(count, 'A-index', '3, 1');
    expect(() =>
      typed(
        (m: Int32Array, v: number) => {
          cuda.atomic.max(m, [0, v / 2], 1);
        },
        [array('i32', 2), 'f64'],
      ),
    ).toThrow(/an index must be an integer, got f64/);
  });
});
