import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { dtype, NotViewableError, ReadOnlyViewError, StridedMemoryView } from '../index.js';
// What a user does: importing the adapter's subpath registers it.
import './arrow.js';
import { values } from '../../test/values.js';

/** The buffer that holds a single-chunk primitive vector's values. */
function valuesOf(v: arrow.Vector): ArrayBufferView {
  return v.data[0]!.values as ArrayBufferView;
}

describe('host adapter: Apache Arrow vectors', () => {
  it.each([
    [new Int8Array([1, -2, 3]), 'int8'],
    [new Uint16Array([1, 2, 3]), 'uint16'],
    [new Int32Array([1, 2, 3]), 'int32'],
    [new BigInt64Array([1n, 2n, 3n]), 'int64'],
    [new Float32Array([1.5, 2.5, 3.5]), 'float32'],
    [new Float64Array([1.5, 2.5, 3.5]), 'float64'],
  ])('views a numeric vector zero-copy (%o → %s), read-only', (typed, name) => {
    const vec = arrow.makeVector(typed);
    const view = StridedMemoryView.fromAny(vec);
    expect([view.dtype, view.shape, view.readonly, view.copied]).toEqual([dtype(name), [3], true, false]);
    const values = valuesOf(vec);
    expect(view.buffer).toBe(values.buffer);
    // writing into Arrow's values (its only writer) is seen through the view
    const raw = values as unknown as { [i: number]: number | bigint };
    raw[1] = typeof raw[1] === 'bigint' ? 42n : 42;
    expect(view.typedArray('read')[1]).toBe(raw[1]);
    expect(vec.get(1)).toBe(raw[1]);
    expect(() => view.typedArray()).toThrow(ReadOnlyViewError);
    expect(() => view.typedArray()).toThrow(
      /typedArray\('read'\) aliases its memory for reading, toTypedArray\(\) makes a writable copy/,
    );
  });

  it('views float16 vectors as float16, not as their uint16 bits', () => {
    const vec = arrow.makeVector({ type: new arrow.Float16(), data: new Uint16Array([0x3c00, 0x4000]) });
    const view = StridedMemoryView.fromArrow(vec);
    expect(view.dtype).toBe(dtype('float16'));
    expect(vec.get(0)).toBe(1);
  });

  it('views a sliced vector at its offset', () => {
    const vec = arrow.makeVector(new Float32Array([0, 1, 2, 3, 4, 5])).slice(2, 5);
    const view = StridedMemoryView.fromAny(vec);
    expect(view.shape).toEqual([3]);
    expect(values(view)).toEqual([2, 3, 4]);
    (valuesOf(vec) as Float32Array)[0] = -2;
    expect(view.toTypedArray()[0]).toBe(-2);
    expect(vec.get(0)).toBe(-2);
  });

  it('views a fixed-size list of floats as 2-d, zero-copy', () => {
    const child = arrow.makeData({ type: new arrow.Float64(), data: new Float64Array([1, 2, 3, 4, 5, 6, 7, 8, 9]) });
    const list = arrow.makeData({
      type: new arrow.FixedSizeList(3, new arrow.Field('xyz', new arrow.Float64())),
      length: 3,
      nullCount: 0,
      child,
    });
    const vec = arrow.makeVector(list);
    const view = StridedMemoryView.fromAny(vec);
    expect([view.shape, view.strides, view.dtype]).toEqual([[3, 3], [3, 1], dtype('float64')]);
    (child.values as Float64Array)[4] = 50;
    expect(view.slice(1, 1).toTypedArray()[0]).toBe(50);
    expect(vec.get(1)!.get(1)).toBe(50);
    const tail = StridedMemoryView.fromAny(vec.slice(1));
    expect(values(tail)).toEqual([4, 50, 6, 7, 8, 9]);
  });

  it('copies vectors of several chunks once, flagged as copied', () => {
    const vec = arrow.makeVector(new Int32Array([1, 2])).concat(arrow.makeVector(new Int32Array([3, 4, 5])));
    expect(vec.data.length).toBe(2);
    const view = StridedMemoryView.fromAny(vec);
    expect([view.copied, view.readonly, values(view)]).toEqual([true, false, [1, 2, 3, 4, 5]]);
    expect(StridedMemoryView.fromAny(vec).buffer).toBe(view.buffer); // copied once, then remembered
  });

  it('unpacks boolean vectors (bit-packed in Arrow) into bytes', () => {
    const vec = arrow.vectorFromArray([true, false, true, true, false, false, false, false, true]).slice(1);
    const view = StridedMemoryView.fromAny(vec);
    expect([view.dtype, view.copied, values(view)]).toEqual([dtype('bool'), true, [0, 1, 1, 0, 0, 0, 0, 1]]);
  });

  it('refuses nulls and non-numeric vectors with NotViewableError', () => {
    expect(() => StridedMemoryView.fromAny(arrow.vectorFromArray([1, null, 3], new arrow.Int32()))).toThrow(/1 null/);
    expect(() => StridedMemoryView.fromAny(arrow.vectorFromArray(['a', 'b']))).toThrow(NotViewableError);
    expect(() => StridedMemoryView.fromAny(arrow.vectorFromArray(['a', 'b']))).toThrow(/Utf8|Dictionary/);
  });
});
