import { afterEach, describe, expect, it } from 'vitest';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK_DEVICE,
  dtype,
  InvalidLayoutError,
  ProtocolError,
  ReadOnlyViewError,
  setDriverHooks,
  StreamOrderError,
  StreamRequiredError,
  StridedMemoryView,
  UnknownDTypeError,
  UnsupportedDeviceError,
} from './index.js';
import { CaiArray } from '../test/exporters.js';

afterEach(() => setDriverHooks({}));

describe('fromCudaArrayInterface', () => {
  it('reads shape, typestr, byte strides (as elements) and the address as a bigint', () => {
    const v = StridedMemoryView.fromCudaArrayInterface(
      new CaiArray({ data: [0x7000n, false], shape: [3, 2], typestr: '<f8', strides: [48, 8] }),
      { stream: -1 },
    );
    expect([v.ptr, v.shape, v.strides, v.dtype, v.readonly, v.buffer]).toEqual([
      0x7000n,
      [3, 2],
      [6, 1],
      dtype('float64'),
      false,
      undefined,
    ]);
    const compact = StridedMemoryView.fromCudaArrayInterface(
      new CaiArray({ data: [4096, true], shape: [2, 2], typestr: '|u1' }),
    );
    expect([compact.ptr, compact.strides, compact.readonly]).toEqual([4096n, [2, 1], true]);
  });

  it('refuses what version 3 forbids or this package cannot view, with named errors', () => {
    const view = (fields: Record<string, unknown>) => () =>
      StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false], ...fields } as never), {
        stream: -1,
      });
    expect(view({ version: 2 })).toThrow(/version 3 or later/);
    expect(view({ mask: {} })).toThrow(/masked arrays/);
    expect(view({ typestr: '>f4' })).toThrow(UnknownDTypeError);
    expect(view({ typestr: '<V2' })).toThrow(/opaque/);
    expect(view({ strides: [6] })).toThrow(InvalidLayoutError);
    expect(view({ strides: [4, 4] })).toThrow(/strides has 2 entries but shape has 1/);
    expect(view({ shape: [-2] })).toThrow(InvalidLayoutError);
    expect(view({ stream: 0 })).toThrow(/stream is 0/);
    expect(view({ stream: 'x' })).toThrow(ProtocolError);
    expect(view({ data: [-5, false] })).toThrow(ProtocolError);
    expect(view({ data: [1n] })).toThrow(/\[address, readOnly\]/);
    expect(() => StridedMemoryView.fromCudaArrayInterface({})).toThrow(ProtocolError);
  });

  it('refuses read-only memory to a caller that writes', () => {
    expect(() =>
      StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, true] }), { writable: true }),
    ).toThrow(ReadOnlyViewError);
  });

  it('reads an answer that can never change once, any other on every call', () => {
    const answer = Object.freeze({
      shape: Object.freeze([4]),
      typestr: '<f4',
      data: Object.freeze([0x1000n, false] as const),
      strides: null,
      version: 3,
    });
    const frozen = { [CUDA_ARRAY_INTERFACE]: () => answer };
    const a = StridedMemoryView.fromCudaArrayInterface(frozen);
    const b = StridedMemoryView.fromCudaArrayInterface(frozen);
    expect(a.strides).toBe(b.strides); // the same parsed layout
    const live = new CaiArray({ data: [0x1000n, false] }, false);
    expect(StridedMemoryView.fromCudaArrayInterface(live).strides).not.toBe(
      StridedMemoryView.fromCudaArrayInterface(live).strides,
    );
  });

  it('reads a frozen answer again when its arrays or getters can still change', () => {
    const data: [bigint, boolean] = [0x1000n, false];
    const shape = [4];
    const shallow = Object.freeze({ shape, typestr: '<f4', data, strides: null, version: 3 });
    const exporter = { [CUDA_ARRAY_INTERFACE]: () => shallow };
    expect(StridedMemoryView.fromCudaArrayInterface(exporter).ptr).toBe(0x1000n);
    data[0] = 0x2000n;
    shape[0] = 8;
    const moved = StridedMemoryView.fromCudaArrayInterface(exporter);
    expect([moved.ptr, moved.shape]).toEqual([0x2000n, [8]]);
    let address = 0x3000n;
    const withGetter = Object.freeze({
      shape: Object.freeze([4]),
      typestr: '<f4',
      version: 3,
      strides: null,
      get data() {
        return Object.freeze([address, false]);
      },
    });
    const viaGetter = { [CUDA_ARRAY_INTERFACE]: () => withGetter };
    expect(StridedMemoryView.fromCudaArrayInterface(viaGetter).ptr).toBe(0x3000n);
    address = 0x4000n;
    expect(StridedMemoryView.fromCudaArrayInterface(viaGetter).ptr).toBe(0x4000n);
  });
});

describe('fromCudaArrayInterface: the consumer waits on the producer stream', () => {
  it('asks the registered waiter to order the consumer stream after the producer stream', () => {
    const waits: [bigint, bigint][] = [];
    setDriverHooks({ waitStream: (producer, consumer) => waits.push([producer, consumer]) });
    const producer = new CaiArray({ data: [0x1000n, false], stream: 0xa0n });
    const v = StridedMemoryView.fromCudaArrayInterface(producer, { stream: 0xb0n });
    expect(v.stream).toBe(0xb0n);
    StridedMemoryView.fromCudaArrayInterface(producer, { stream: 0xa0n }); // the same stream: no wait
    StridedMemoryView.fromCudaArrayInterface(producer, { stream: -1 }); // opted out
    StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false], stream: 1 }), { stream: 0n }); // legacy default both sides
    StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false], stream: 2 }), { stream: 0n });
    expect(waits).toEqual([
      [0xa0n, 0xb0n],
      [2n, 1n],
    ]);
  });

  it('needs no stream when the producer names none, and a stream when it does', () => {
    expect(
      StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false], stream: null })).stream,
    ).toBeUndefined();
    expect(() => StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false], stream: 7 }))).toThrow(
      StreamRequiredError,
    );
  });

  it('without a waiter, refuses to pretend that two streams are ordered', () => {
    const producer = new CaiArray({ data: [0x1000n, false], stream: 0xa0n });
    expect(() => StridedMemoryView.fromCudaArrayInterface(producer, { stream: 0xb0n })).toThrow(StreamOrderError);
    expect(() => StridedMemoryView.fromCudaArrayInterface(producer, { stream: 0xb0n })).toThrow(
      /import @cuda-js\/core/,
    );
    expect(StridedMemoryView.fromCudaArrayInterface(producer, { stream: -1 }).stream).toBeUndefined();
  });
});

describe('fromCudaArrayInterface: the device', () => {
  it('comes from the driver hook, or from a dlpack.device method of the exporter', () => {
    const plain = StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false] }));
    expect(() => plain.device).toThrow(UnsupportedDeviceError);
    expect(plain.isDeviceAccessible).toBe(true);
    setDriverHooks({ pointerDevice: (ptr) => ({ type: 2, id: ptr === 0x1000n ? 5 : 0 }) });
    expect(StridedMemoryView.fromCudaArrayInterface(new CaiArray({ data: [0x1000n, false] })).device).toEqual({
      type: 2,
      id: 5,
    });
    const withDevice = Object.assign(new CaiArray({ data: [0x2000n, false] }), {
      [DLPACK_DEVICE]: () => [13, 0] as const,
    });
    expect(StridedMemoryView.fromCudaArrayInterface(withDevice).device).toEqual({ type: 13, id: 0 });
  });

  it('round-trips through a view’s own CUDA array interface', () => {
    setDriverHooks({ pointerDevice: () => ({ type: 2, id: 0 }) });
    const first = StridedMemoryView.fromCudaArrayInterface(
      new CaiArray({ data: [0x5000n, false], shape: [4, 4], typestr: '<i4', stream: 3 }),
      { stream: 3n },
    );
    const second = StridedMemoryView.fromCudaArrayInterface(
      { [CUDA_ARRAY_INTERFACE]: () => first.slice([0, 4, 2])[CUDA_ARRAY_INTERFACE]() },
      { stream: 3n },
    );
    expect([second.ptr, second.shape, second.strides, second.dtype.name]).toEqual([0x5000n, [2, 4], [8, 1], 'int32']);
  });
});
