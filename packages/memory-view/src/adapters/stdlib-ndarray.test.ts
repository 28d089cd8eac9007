import Complex64Array from '@stdlib/array-complex64';
import ndarrayCtor from '@stdlib/ndarray-ctor';
import { describe, expect, it } from 'vitest';
import { dtype, NotViewableError, ReadOnlyViewError, StridedMemoryView } from '../index.js';
// What a user does: importing the adapter's subpath registers it.
import './stdlib-ndarray.js';
import { values } from '../../test/values.js';

describe('host adapter: stdlib ndarray', () => {
  it('views a row-major ndarray zero-copy: writes through either side are seen on the other', () => {
    const data = new Float64Array(6);
    const x = new ndarrayCtor('float64', data, [2, 3], [3, 1], 0, 'row-major');
    const v = StridedMemoryView.fromAny(x);
    expect([v.dtype, v.shape, v.strides, v.buffer, v.readonly]).toEqual([
      dtype('float64'),
      [2, 3],
      [3, 1],
      data.buffer,
      false,
    ]);
    x.set(1, 2, 12);
    expect(v.slice(1, 2).toTypedArray()[0]).toBe(12);
    v.slice(0, 1).copyFrom(new Float64Array([5]));
    expect(x.get(0, 1)).toBe(5);
  });

  it('honours column-major strides, offsets and negative strides', () => {
    const data = Float32Array.from({ length: 8 }, (_, i) => i);
    const x = new ndarrayCtor('float32', data, [2, 2], [-1, 2], 5, 'column-major');
    const v = StridedMemoryView.fromStdlibNdarray(x);
    expect([v.shape, v.strides, v.byteOffset]).toEqual([[2, 2], [-1, 2], 20]);
    expect(values(v)).toEqual([x.get(0, 0), x.get(0, 1), x.get(1, 0), x.get(1, 1)]);
  });

  it('views complex64 data (a Complex64Array) as interleaved pairs', () => {
    const z = new Complex64Array(3);
    const x = new ndarrayCtor('complex64', z as never, [3], [1], 0, 'row-major');
    const v = StridedMemoryView.fromAny(x);
    expect([v.dtype.name, v.shape, v.itemsize]).toEqual(['complex64', [3], 8]);
    (v.typedArray() as Float32Array).set([1.5, -2.5], 2);
    const c = z.get(1) as unknown as { re: number; im: number };
    expect([c.re, c.im]).toEqual([1.5, -2.5]);
  });

  it('keeps a read-only ndarray read-only', () => {
    const x = new ndarrayCtor('int32', new Int32Array(4), [4], [1], 0, 'row-major', { readonly: true });
    const v = StridedMemoryView.fromAny(x);
    expect(v.readonly).toBe(true);
    expect(() => v.typedArray()).toThrow(ReadOnlyViewError);
    expect(() => StridedMemoryView.fromAny(x, { writable: true })).toThrow(ReadOnlyViewError);
  });

  it('refuses generic (plain array) ndarrays', () => {
    const x = new ndarrayCtor('generic', [1, 2, 3], [3], [1], 0, 'row-major');
    expect(() => StridedMemoryView.fromAny(x)).toThrow(NotViewableError);
  });
});
