import { afterEach, describe, expect, it } from 'vitest';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  dtype,
  isViewable,
  NotViewableError,
  ReadOnlyViewError,
  setDriverHooks,
  StridedMemoryView,
  ExporterClosedError,
} from './index.js';
import { CaiArray, DeviceArray, HostArray } from '../test/exporters.js';

afterEach(() => setDriverHooks({}));

describe('fromAny', () => {
  it('views a Float32Array with no stream and no ceremony', () => {
    const a = new Float32Array(16);
    const v = StridedMemoryView.fromAny(a);
    expect([v.shape, v.dtype, v.buffer, v.exporter]).toEqual([[16], dtype('float32'), a.buffer, a]);
  });

  it('tries DLPack before the CUDA array interface', () => {
    const both = Object.assign(new DeviceArray(0x1000n, [4]), new CaiArray({ data: [0x2000n, false] }));
    Object.setPrototypeOf(both, DeviceArray.prototype);
    (both as unknown as Record<symbol, unknown>)[CUDA_ARRAY_INTERFACE] = () => {
      throw new Error('the CUDA array interface must not be read when DLPack is there');
    };
    expect(StridedMemoryView.fromAny(both, { stream: -1 }).ptr).toBe(0x1000n);
    expect(StridedMemoryView.fromAny(new CaiArray({ data: [0x2000n, false] })).ptr).toBe(0x2000n);
  });

  it('tries the protocols before the host adapters', () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const producer = new HostArray(data.buffer, [2, 2]);
    const typedWithDLPack = Object.assign(new Uint8Array(4), {
      [DLPACK]: producer[DLPACK].bind(producer),
      [Symbol.for('dlpack.device')]: () => [1, 0],
    });
    expect(StridedMemoryView.fromAny(typedWithDLPack).shape).toEqual([2, 2]);
  });

  it('returns a view as is, and orders it on a new stream through the waiter', () => {
    const v = StridedMemoryView.fromAny(new DeviceArray(0x1000n, [4]), { stream: 0x10n });
    expect(StridedMemoryView.fromAny(v)).toBe(v);
    expect(StridedMemoryView.fromAny(v, { stream: 0x10n })).toBe(v);
    expect(StridedMemoryView.fromAny(v, { stream: -1 })).toBe(v);
    const waits: bigint[][] = [];
    setDriverHooks({ waitStream: (p, c) => waits.push([p, c]) });
    const moved = StridedMemoryView.fromAny(v, { stream: 0x20n });
    expect([moved.ptr, moved.stream]).toEqual([0x1000n, 0x20n]);
    expect(waits).toEqual([[0x10n, 0x20n]]);
    v.close();
    expect(() => StridedMemoryView.fromAny(v)).toThrow(ExporterClosedError);
    expect(moved.closed).toBe(true);
  });

  it('refuses what it cannot view with NotViewableError', () => {
    for (const bad of [undefined, null, 3, 'str', {}, [1, 2, 3], new Map()]) {
      expect(() => StridedMemoryView.fromAny(bad)).toThrow(NotViewableError);
      expect(isViewable(bad)).toBe(false);
    }
    expect(isViewable(new ArrayBuffer(1))).toBe(true);
    expect(isViewable(new CaiArray({ data: [1n, false] }))).toBe(true);
  });

  it('refuses a read-only source to a caller that writes', () => {
    const v = StridedMemoryView.fromBuffer(new ArrayBuffer(4), { readonly: true });
    expect(() => StridedMemoryView.fromAny(v, { writable: true })).toThrow(ReadOnlyViewError);
  });
});
