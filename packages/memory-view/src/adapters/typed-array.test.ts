import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { dtype, ExporterClosedError, StridedMemoryView } from '../index.js';

describe('host adapter: typed arrays, DataView, ArrayBuffer, SharedArrayBuffer, Buffer', () => {
  const kinds: [new (n: number) => ArrayBufferView & ArrayLike<number | bigint>, string][] = [
    [Int8Array, 'int8'],
    [Uint8Array, 'uint8'],
    [Uint8ClampedArray, 'uint8'],
    [Int16Array, 'int16'],
    [Uint16Array, 'uint16'],
    [Int32Array, 'int32'],
    [Uint32Array, 'uint32'],
    [Float32Array, 'float32'],
    [Float64Array, 'float64'],
    [BigInt64Array, 'int64'],
    [BigUint64Array, 'uint64'],
  ];

  it.each(kinds)('%o is viewed zero-copy as %s', (Kind, name) => {
    const whole = new Kind(10);
    const part = (whole as unknown as Uint8Array).subarray(3, 8) as unknown as ArrayBufferView;
    const v = StridedMemoryView.fromAny(part);
    expect([v.dtype, v.shape, v.strides, v.byteOffset, v.buffer]).toEqual([
      dtype(name),
      [5],
      [1],
      3 * dtype(name).itemsize,
      whole.buffer,
    ]);
    // write through the view, read in the array; and the other way round
    const alias = v.typedArray() as unknown as { [i: number]: number | bigint };
    const one = typeof alias[0] === 'bigint' ? 1n : 1;
    alias[0] = one;
    expect((whole as unknown as { [i: number]: unknown })[3]).toBe(one);
    (whole as unknown as { [i: number]: number | bigint })[7] = typeof one === 'bigint' ? 7n : 7;
    expect(v.toTypedArray()[4]).toBe(typeof one === 'bigint' ? 7n : 7);
  });

  it('views a Node Buffer as uint8, sharing its (pooled) memory', () => {
    const b = Buffer.from('hello world');
    const v = StridedMemoryView.fromTypedArray(b);
    expect([v.dtype, v.shape, v.byteOffset, v.buffer]).toEqual([dtype('uint8'), [11], b.byteOffset, b.buffer]);
    (v.typedArray() as Uint8Array)[0] = 'j'.charCodeAt(0);
    expect(b.toString()).toBe('jello world');
  });

  it('views a DataView as its bytes, and whole ArrayBuffers and SharedArrayBuffers', () => {
    const buffer = new ArrayBuffer(16);
    const dv = new DataView(buffer, 4, 8);
    const v = StridedMemoryView.fromAny(dv);
    expect([v.dtype, v.shape, v.byteOffset]).toEqual([dtype('uint8'), [8], 4]);
    dv.setUint8(0, 9);
    expect(v.toTypedArray()[0]).toBe(9);
    expect(StridedMemoryView.fromAny(buffer).shape).toEqual([16]);
    const shared = new SharedArrayBuffer(8);
    const sv = StridedMemoryView.fromAny(shared);
    expect(sv.buffer).toBe(shared);
    (sv.typedArray() as Uint8Array)[7] = 3;
    expect(new Uint8Array(shared)[7]).toBe(3);
    expect(StridedMemoryView.fromAny(new Float64Array(shared)).shape).toEqual([1]);
  });

  it('refuses a detached array as a closed exporter', () => {
    const a = new Float32Array(4);
    structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
    expect(() => StridedMemoryView.fromAny(a)).toThrow(ExporterClosedError);
    expect(() => StridedMemoryView.fromAny(a.buffer)).toThrow(ExporterClosedError);
  });
});
