import ndarray from 'ndarray';
import { describe, expect, it } from 'vitest';
import { dtype, NotViewableError, OutOfBoundsError, StridedMemoryView } from '../index.js';
// What a user does: importing the adapter's subpath registers it.
import './ndarray.js';
import { values } from '../../test/values.js';

describe('host adapter: scijs ndarray (the ndarray package)', () => {
  it('views a 2-d ndarray zero-copy: writes through either side are seen on the other', () => {
    const a = ndarray(new Float64Array(12), [3, 4]);
    const v = StridedMemoryView.fromAny(a);
    expect([v.dtype, v.shape, v.strides, v.byteOffset]).toEqual([dtype('float64'), [3, 4], [4, 1], 0]);
    a.set(2, 1, 21);
    expect(v.slice(2, 1).toTypedArray()[0]).toBe(21);
    v.slice(1, 3).copyFrom(new Float64Array([13]));
    expect(a.get(1, 3)).toBe(13);
  });

  it('honours transposes, negative steps and offsets', () => {
    const a = ndarray(
      Int32Array.from({ length: 12 }, (_, i) => i),
      [3, 4],
    );
    const b = a.transpose(1, 0).lo(1, 0).step(-1, 2); // shape [3, 2]
    const v = StridedMemoryView.fromNdarray(b);
    expect([v.shape, v.strides]).toEqual([b.shape, b.stride]);
    const expected: number[] = [];
    for (let i = 0; i < b.shape[0]!; i++) for (let j = 0; j < b.shape[1]!; j++) expected.push(b.get(i, j));
    expect(values(v)).toEqual(expected);
    const part = ndarray(new Uint8Array(16).subarray(4), [3], [2], 1);
    expect(StridedMemoryView.fromAny(part).byteOffset).toBe(5);
  });

  it('refuses ndarrays over plain JS arrays, and layouts outside their data', () => {
    expect(() => StridedMemoryView.fromAny(ndarray([1, 2, 3]))).toThrow(NotViewableError);
    expect(() => StridedMemoryView.fromAny(ndarray(new Float32Array(4), [5]))).toThrow(OutOfBoundsError);
    // outside the typed array, though inside its buffer
    expect(() => StridedMemoryView.fromAny(ndarray(new Float32Array(8).subarray(0, 4), [4], [1], 2))).toThrow(
      OutOfBoundsError,
    );
  });
});
