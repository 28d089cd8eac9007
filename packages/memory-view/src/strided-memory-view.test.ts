import { describe, expect, it } from 'vitest';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  DLDeviceType,
  dtype,
  ExporterClosedError,
  InvalidLayoutError,
  OutOfBoundsError,
  ReadOnlyViewError,
  StridedMemoryView,
  UnsupportedDeviceError,
  UnsupportedExportError,
  UnknownDTypeError,
} from './index.js';
import { collectUntil } from '../test/gc.js';
import { values } from '../test/values.js';

const iota = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => i);

describe('StridedMemoryView: properties', () => {
  it('describes a 2-d host view', () => {
    const data = iota(12);
    const v = StridedMemoryView.fromBuffer(data, { dtype: 'float32', shape: [3, 4] });
    expect(v.shape).toEqual([3, 4]);
    expect(v.strides).toEqual([4, 1]);
    expect([v.ndim, v.size, v.itemsize, v.nbytes]).toEqual([2, 12, 4, 48]);
    expect([v.isCContiguous, v.isFContiguous, v.readonly, v.copied]).toEqual([true, false, false, false]);
    expect(v.device).toEqual({ type: DLDeviceType.CPU, id: 0 });
    expect(v.buffer).toBe(data.buffer);
    expect(v.ptr).toBeUndefined();
    expect(v.exporter).toBe(data);
    expect([v.isHostAccessible, v.isDeviceAccessible]).toEqual([true, false]);
    expect(String(v)).toMatch(/^StridedMemoryView\(float32 \[3, 4\] strides \[4, 1\] on CPU:0/);
  });

  it('knows F-contiguity, and that extents of 1 and empty views ignore strides', () => {
    const buf = new ArrayBuffer(48);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [3, 4], strides: [1, 3] }).isFContiguous).toBe(
      true,
    );
    const column = StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [3, 1], strides: [1, 99] });
    expect([column.isCContiguous, column.isFContiguous]).toEqual([true, true]);
    const empty = StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [0, 5], strides: [7, 3] });
    expect([empty.size, empty.nbytes, empty.isCContiguous]).toEqual([0, 0, true]);
  });

  it('takes a device pointer as a bigint, with a device and an owner', () => {
    const owner = { name: 'allocation' };
    const v = StridedMemoryView.fromPointer(0x7f0000001000n, {
      dtype: 'int32',
      shape: [2, 2],
      device: { type: DLDeviceType.CUDA, id: 3 },
      exporter: owner,
      stream: 0x55n,
    });
    expect(typeof v.ptr).toBe('bigint');
    expect([v.ptr, v.buffer, v.device, v.exporter, v.stream]).toEqual([
      0x7f0000001000n,
      undefined,
      { type: 2, id: 3 },
      owner,
      0x55n,
    ]);
    expect(v.isDeviceAccessible).toBe(true);
    expect(v.isHostAccessible).toBe(false);
  });

  it('refuses a layout that leaves its buffer, and shape/strides of different lengths', () => {
    const buf = new ArrayBuffer(16);
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [5] })).toThrow(OutOfBoundsError);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [2], strides: [3] }).size).toBe(2); // elements at bytes 0 and 12
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [2], strides: [4] })).toThrow(
      OutOfBoundsError,
    );
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [2], strides: [-1] })).toThrow(
      OutOfBoundsError,
    );
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [2, 2], strides: [2] })).toThrow(
      InvalidLayoutError,
    );
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [2, -1] })).toThrow(InvalidLayoutError);
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [1.5] })).toThrow(InvalidLayoutError);
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float32', byteOffset: 2 })).toThrow(
      /not a whole number of float32/,
    );
    // a negative stride that stays inside: starts at the last element
    const back = StridedMemoryView.fromBuffer(buf, { dtype: 'float32', shape: [4], strides: [-1], byteOffset: 12 });
    expect(back.toTypedArray()).toEqual(new Float32Array(4));
  });

  it('keeps the offset of a typed array within its buffer', () => {
    const whole = iota(8);
    const tail = whole.subarray(4);
    const v = StridedMemoryView.fromBuffer(tail, { dtype: 'float32' });
    expect([v.byteOffset, v.shape]).toEqual([16, [4]]);
    expect(Array.from(v.typedArray() as Float32Array)).toEqual([4, 5, 6, 7]);
  });
});

describe('StridedMemoryView: derived views', () => {
  it('slices leading dimensions with indices, ranges and negative steps', () => {
    const v = StridedMemoryView.fromBuffer(iota(12), { dtype: 'float32', shape: [3, 4] });
    const row = v.slice(1);
    expect([row.shape, row.strides, row.byteOffset]).toEqual([[4], [1], 16]);
    expect(values(row)).toEqual([4, 5, 6, 7]);
    const rev = v.slice([undefined, undefined, -1], [1, 4, 2]);
    expect([rev.shape, rev.strides]).toEqual([
      [3, 2],
      [-4, 2],
    ]);
    expect(values(rev)).toEqual([9, 11, 5, 7, 1, 3]);
    expect(rev.isCContiguous).toBe(false);
    expect(values(v.slice(-1, -1))).toEqual([11]);
    expect(v.slice([5, 9]).shape).toEqual([0, 4]);
    expect(v.slice(null, [-2]).shape).toEqual([3, 2]);
  });

  it('takes null inside a slice tuple as undefined (Python slices take None)', () => {
    const v = StridedMemoryView.fromBuffer(iota(12), { dtype: 'float32', shape: [3, 4] });
    const rev = v.slice([null, null, -1], [null, 4, null]);
    expect([rev.shape, rev.strides]).toEqual([
      [3, 4],
      [-4, 1],
    ]);
    expect(values(rev)).toEqual(values(v.slice([undefined, undefined, -1])));
    expect(values(v.slice([1, null]))).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('refuses slices that do not fit', () => {
    const v = StridedMemoryView.fromBuffer(iota(12), { dtype: 'float32', shape: [3, 4] });
    expect(() => v.slice(3)).toThrow(InvalidLayoutError);
    expect(() => v.slice([0, 2, 0])).toThrow(/non-zero integer/);
    expect(() => v.slice(0, 0, 0)).toThrow(/3 specs for a 2-d view/);
  });

  it('re-shapes a C-contiguous view, inferring -1', () => {
    const v = StridedMemoryView.fromBuffer(iota(12), { dtype: 'float32', shape: [12] });
    const m = v.view({ shape: [2, -1, 3] });
    expect([m.shape, m.strides]).toEqual([
      [2, 2, 3],
      [6, 3, 1],
    ]);
    expect(() => v.view({ shape: [5, -1] })).toThrow(InvalidLayoutError);
    expect(() => v.view({ shape: [13] })).toThrow(/holds 13 elements, the view has 12/);
    const strided = v.view({ shape: [3, 4] }).slice(null, [0, 4, 2]);
    expect(() => strided.view({ shape: [6] })).toThrow(/C-contiguous/);
  });

  it('re-types the last dimension where the bytes allow', () => {
    const bytes = new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    const u8 = StridedMemoryView.fromBuffer(bytes, { shape: [2, 8] });
    const i32 = u8.view({ dtype: 'int32' });
    expect([i32.shape, i32.strides, i32.dtype]).toEqual([[2, 2], [2, 1], dtype('int32')]);
    expect(values(i32)).toEqual([1, 2, 3, 4]);
    const back = i32.view({ dtype: 'uint16' });
    expect([back.shape, back.strides]).toEqual([
      [2, 4],
      [4, 1],
    ]);
    const c64 = StridedMemoryView.fromBuffer(iota(4), { dtype: 'float32' }).view({ dtype: 'complex64' });
    expect(c64.shape).toEqual([2]);
    expect(() => u8.slice(null, [0, 7]).view({ dtype: 'int32' })).toThrow(/7 bytes, not a multiple of 4/);
    expect(() => u8.slice(null, [0, 8, 2]).view({ dtype: 'int16' })).toThrow(/must be contiguous/);
    expect(() => StridedMemoryView.fromBuffer(new ArrayBuffer(4), { shape: [] }).view({ dtype: 'int16' })).toThrow(
      /0-d/,
    );
  });

  it('shares the exporter and the family: closing one closes all', () => {
    const v = StridedMemoryView.fromBuffer(iota(6), { dtype: 'float32', shape: [2, 3] });
    const row = v.slice(0);
    expect(row.exporter).toBe(v.exporter);
    row.close();
    expect([v.closed, row.closed]).toEqual([true, true]);
    expect(() => v.typedArray()).toThrow(ExporterClosedError);
    expect(() => v.slice(1)).toThrow(ExporterClosedError);
    row.close(); // twice is fine
  });
});

describe('StridedMemoryView: host access', () => {
  it('aliases memory through typedArray(): writes on either side are seen on the other', () => {
    const data = iota(6);
    const v = StridedMemoryView.fromBuffer(data, { dtype: 'float32', shape: [2, 3] });
    const alias = v.typedArray() as Float32Array;
    alias[4] = 42;
    expect(data[4]).toBe(42);
    data[0] = -1;
    expect(alias[0]).toBe(-1);
  });

  it('gives complex, vector, bfloat16 and bool elements as their parts or bits', () => {
    const buf = new ArrayBuffer(32);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'complex64', shape: [4] }).typedArray()).toBeInstanceOf(
      Float32Array,
    );
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'complex64', shape: [4] }).typedArray().length).toBe(8);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'float32x4', shape: [2] }).typedArray().length).toBe(8);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'bfloat16', shape: [16] }).typedArray()).toBeInstanceOf(
      Uint16Array,
    );
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'bool', shape: [32] }).typedArray()).toBeInstanceOf(Uint8Array);
    expect(StridedMemoryView.fromBuffer(buf, { dtype: 'int64', shape: [4] }).typedArray()).toBeInstanceOf(
      BigInt64Array,
    );
    expect(() => StridedMemoryView.fromBuffer(buf, { dtype: 'float4_e2m1fn', shape: [64] }).typedArray()).toThrow(
      UnknownDTypeError,
    );
  });

  it('refuses typedArray() of strided or misaligned views, and points to toTypedArray()', () => {
    const v = StridedMemoryView.fromBuffer(iota(6), { dtype: 'float32', shape: [2, 3] });
    expect(() => v.slice(null, [0, 3, 2]).typedArray()).toThrow(/toTypedArray/);
    const odd = StridedMemoryView.fromBuffer(new ArrayBuffer(12), { dtype: 'int16', shape: [2], byteOffset: 1 });
    expect(() => odd.typedArray()).toThrow(/not aligned/);
    expect(odd.toTypedArray()).toEqual(new Int16Array(2));
  });

  it('copies strided memory into and out of views, element by element', () => {
    const src = StridedMemoryView.fromBuffer(iota(12), { dtype: 'float32', shape: [3, 4] });
    const dst = StridedMemoryView.fromBuffer(new Float32Array(24), { dtype: 'float32', shape: [4, 6] })
      .slice([0, 4, 1], [0, 6, 2])
      .slice([0, 3]);
    expect(dst.shape).toEqual([3, 3]);
    dst.copyFrom(src.slice(null, [1, 4]));
    expect(values(dst)).toEqual([1, 2, 3, 5, 6, 7, 9, 10, 11]);
    expect(() => dst.copyFrom(src)).toThrow(/shape \[3, 4\] differs/);
    expect(() => dst.copyFrom(new Int32Array(9))).toThrow(/holds int32/);
    // overlapping source and destination in one buffer
    const line = StridedMemoryView.fromBuffer(iota(6), { dtype: 'float32' });
    line.slice([1, 6]).copyFrom(line.slice([0, 5]));
    expect(values(line)).toEqual([0, 0, 1, 2, 3, 4]);
    // odd byte offsets go byte by byte
    const bytes = new Uint8Array(9);
    StridedMemoryView.fromBuffer(bytes, { dtype: 'int16', shape: [4], byteOffset: 1 }).copyFrom(
      new Int16Array([1, 2, 3, 4]),
    );
    expect(Array.from(bytes)).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0]);
  });

  it('refuses to write through a read-only view, in every API that writes', () => {
    const data = iota(4);
    const ro = StridedMemoryView.fromBuffer(data, { dtype: 'float32', readonly: true });
    expect(() => ro.typedArray()).toThrow(ReadOnlyViewError);
    expect(() => ro.copyFrom(iota(4))).toThrow(ReadOnlyViewError);
    expect(() => ro.requireWritable('launch a kernel that writes it')).toThrow(
      /cannot launch a kernel that writes it: the view is read-only/,
    );
    expect(() => StridedMemoryView.fromAny(ro, { writable: true })).toThrow(ReadOnlyViewError);
    expect(Array.from(ro.typedArray('read') as Float32Array)).toEqual([0, 1, 2, 3]);
    expect(ro.slice([0, 2]).readonly).toBe(true);
  });

  it('refuses host access to device memory', () => {
    const v = StridedMemoryView.fromPointer(0x1000n, { dtype: 'float32', shape: [4] });
    expect(() => v.typedArray()).toThrow(UnsupportedDeviceError);
    expect(() => v.toTypedArray()).toThrow(/CUDA:0, not in a JS buffer/);
  });

  it('refuses host access once a resizable buffer has shrunk under the view', () => {
    // Resizable buffers are ES2024; the compile target's lib is ES2023.
    const Resizable = ArrayBuffer as unknown as new (
      n: number,
      o: { maxByteLength: number },
    ) => ArrayBuffer & { resize(n: number): void };
    const buffer = new Resizable(16, { maxByteLength: 32 });
    const v = StridedMemoryView.fromBuffer(buffer, { dtype: 'float32' });
    buffer.resize(8);
    expect(() => v.toTypedArray()).toThrow(OutOfBoundsError);
    expect(() => v.typedArray()).toThrow(OutOfBoundsError);
  });

  it('sees a detached buffer as a closed exporter', () => {
    const data = iota(4);
    const v = StridedMemoryView.fromBuffer(data, { dtype: 'float32' });
    structuredClone(data.buffer, { transfer: [data.buffer as ArrayBuffer] });
    expect(() => v.toTypedArray()).toThrow(ExporterClosedError);
    expect(() => v[DLPACK]()).toThrow(/detached/);
    expect(() => StridedMemoryView.fromBuffer(data.buffer)).toThrow(ExporterClosedError);
  });
});

describe('StridedMemoryView: the protocols, so that a view passes on', () => {
  it('exports host memory through DLPack, and a view of that export sees the same bytes', () => {
    const data = iota(12);
    const v = StridedMemoryView.fromBuffer(data, { dtype: 'float32', shape: [3, 4] }).slice(null, [1, 3]);
    expect(v[DLPACK_DEVICE]()).toEqual([1, 0]);
    const again = StridedMemoryView.fromDLPack(v);
    expect([again.buffer, again.byteOffset, again.shape, again.strides, again.dtype]).toEqual([
      data.buffer,
      4,
      [3, 2],
      [4, 1],
      dtype('float32'),
    ]);
    expect(again.exporter).toBe(v);
    (again.toTypedArray() as Float32Array).forEach((x, i) => expect(x).toBe([1, 2, 5, 6, 9, 10][i]));
  });

  it('keeps the memory while exports are out: close() waits for the last deleter', () => {
    let released = 0;
    const v = StridedMemoryView.fromPointer(0x2000n, {
      dtype: 'uint8',
      shape: [16],
      device: { type: 2, id: 0 },
      release: () => released++,
    });
    const t1 = v[DLPACK]({ stream: -1n });
    const t2 = v.slice([0, 8])[DLPACK]({ stream: -1n });
    expect(t1.data).toBe(0x2000n);
    v.close();
    expect(released).toBe(0);
    t1.deleter!();
    t1.deleter!(); // a second call is ignored
    expect(released).toBe(0);
    t2.deleter!();
    expect(released).toBe(1);
    expect(() => v[DLPACK]()).toThrow(ExporterClosedError);
  });

  it('runs the release exactly once when the family is collected without close()', async () => {
    let released = 0;
    (() => {
      const v = StridedMemoryView.fromPointer(0x3000n, { dtype: 'uint8', shape: [16], release: () => released++ });
      v.slice([2, 4]);
    })();
    await collectUntil(() => released > 0);
    expect(released).toBe(1);
  });

  it('makes a host copy on request, flagged as copied', () => {
    const data = iota(6);
    const v = StridedMemoryView.fromBuffer(data, { dtype: 'float32', shape: [2, 3] }).slice(null, [0, 3, 2]);
    const t = v[DLPACK]({ copy: true });
    expect(t.flags! & 2).toBe(2);
    expect(t.data).not.toBe(data.buffer);
    expect(Array.from(new Float32Array(t.data as ArrayBuffer))).toEqual([0, 2, 3, 5]);
    expect(() => v[DLPACK]({ dlDevice: [2, 0] })).toThrow(UnsupportedExportError);
    expect(() => v[DLPACK]({ dlDevice: [1, 0], copy: false })).not.toThrow();
    const dev = StridedMemoryView.fromPointer(0x10n, { dtype: 'uint8', shape: [1] });
    expect(() => dev[DLPACK]({ dlDevice: [1, 0] })).toThrow(/copies host memory only/);
    expect(() => dev[DLPACK]({ maxVersion: { major: 0, minor: 8 } })).toThrow(/DLPack 1.x only/);
  });

  it('exports device memory through the CUDA array interface (one frozen object), host memory not', () => {
    const v = StridedMemoryView.fromPointer(0xabc000n, { dtype: 'float64', shape: [3, 4], stream: 0x77n }).slice(
      null,
      [0, 4, 2],
    );
    const cai = v[CUDA_ARRAY_INTERFACE]();
    expect(cai).toEqual({
      shape: [3, 2],
      typestr: '<f8',
      data: [0xabc000n, false],
      strides: [32, 16],
      version: 3,
      stream: 0x77n,
    });
    expect(v[CUDA_ARRAY_INTERFACE]()).toBe(cai);
    expect(Object.isFrozen(cai)).toBe(true);
    const c = StridedMemoryView.fromPointer(0x10n, { dtype: 'int8', shape: [4] })[CUDA_ARRAY_INTERFACE]();
    expect([c.strides, c.stream, c.typestr]).toEqual([null, undefined, '|i1']);
    expect(() => StridedMemoryView.fromBuffer(new ArrayBuffer(4))[CUDA_ARRAY_INTERFACE]()).toThrow(
      UnsupportedDeviceError,
    );
    expect(() =>
      StridedMemoryView.fromPointer(0x10n, { dtype: 'float4_e2m1fn', shape: [4] })[CUDA_ARRAY_INTERFACE](),
    ).toThrow(/no CUDA-array-interface typestr/);
  });
});
