import { afterEach, describe, expect, it } from 'vitest';
import {
  CUDA_STREAM,
  DLPACK,
  DLPACK_DEVICE,
  DLPackVersionError,
  dtype,
  ExporterClosedError,
  InvalidLayoutError,
  OutOfBoundsError,
  ProtocolError,
  ReadOnlyViewError,
  setDriverHooks,
  StreamOrderError,
  StreamRequiredError,
  StridedMemoryView,
  UnknownDTypeError,
} from './index.js';
import { DeviceArray, HostArray } from '../test/exporters.js';
import { collectUntil } from '../test/gc.js';
import { values } from '../test/values.js';

afterEach(() => setDriverHooks({}));

describe('fromDLPack: host memory', () => {
  it('views the producer’s buffer zero-copy, with its strides, and keeps the exporter', () => {
    const data = new Float32Array(12).map((_, i) => i);
    const producer = new HostArray(data.buffer, [3, 2], undefined, [4, 2], 4);
    const v = StridedMemoryView.fromDLPack(producer);
    expect([v.buffer, v.byteOffset, v.shape, v.strides, v.dtype, v.exporter]).toEqual([
      data.buffer,
      4,
      [3, 2],
      [4, 2],
      dtype('float32'),
      producer,
    ]);
    expect(values(v)).toEqual([1, 3, 5, 7, 9, 11]);
    data[5] = 50; // written by the producer, read through the view
    expect(v.toTypedArray()[2]).toBe(50);
    v.slice(0, [1, 2]).copyFrom(new Float32Array([-3])); // written through the view, read by the producer
    expect(data[3]).toBe(-3);
  });

  it('asks a host producer with no stream and DLPack 1.3 as the newest version it reads', () => {
    const producer = new HostArray(new ArrayBuffer(16), [4]);
    StridedMemoryView.fromDLPack(producer, { stream: 0x1234n });
    expect(producer.requests[0]).toEqual({ maxVersion: { major: 1, minor: 3 } });
  });

  it('accepts NULL strides from producers older than 1.2 as compact row-major', () => {
    const v = StridedMemoryView.fromDLPack(new HostArray(new ArrayBuffer(96), [2, 3, 4], undefined, null));
    expect(v.strides).toEqual([12, 4, 1]);
  });

  it('calls the deleter exactly once: on close()', () => {
    const producer = new HostArray(new ArrayBuffer(16), [4]);
    const v = StridedMemoryView.fromDLPack(producer);
    const part = v.slice([1, 3]);
    expect(producer.deleted).toBe(0);
    part.close();
    v.close();
    expect(producer.deleted).toBe(1);
    expect(() => v.toTypedArray()).toThrow(ExporterClosedError);
  });

  it('calls the deleter exactly once: when the view family is collected', async () => {
    const producer = new HostArray(new ArrayBuffer(16), [4]);
    (() => {
      const v = StridedMemoryView.fromDLPack(producer);
      v.slice([0, 2]).view({ dtype: 'uint8' });
    })();
    await collectUntil(() => producer.deleted > 0);
    await collectUntil(() => false, 3);
    expect(producer.deleted).toBe(1);
  });

  it('on a major version mismatch only calls the deleter, then throws DLPackVersionError', () => {
    const producer = new HostArray(new ArrayBuffer(16), [4]);
    producer.version = { major: 2, minor: 0 };
    expect(() => StridedMemoryView.fromDLPack(producer)).toThrow(DLPackVersionError);
    expect(producer.deleted).toBe(1);
    try {
      StridedMemoryView.fromDLPack(producer);
    } catch (e) {
      expect(e).toMatchObject({ name: 'DLPackVersionError', major: 2, minor: 0 });
    }
    expect(producer.deleted).toBe(2);
  });

  it('calls the deleter before every error about the tensor’s contents', () => {
    const cases: [HostArray, new (...a: never[]) => Error][] = [
      [new HostArray(new ArrayBuffer(16), [4], { code: 42, bits: 8, lanes: 1 }), UnknownDTypeError],
      [new HostArray(new ArrayBuffer(16), [2, 2], undefined, [1]), InvalidLayoutError],
      [new HostArray(new ArrayBuffer(16), [5]), OutOfBoundsError],
      [new HostArray(new ArrayBuffer(16), [2], undefined, [1], 12), OutOfBoundsError],
      [new HostArray(new ArrayBuffer(16), [-1]), InvalidLayoutError],
    ];
    for (const [producer, error] of cases) {
      expect(() => StridedMemoryView.fromDLPack(producer)).toThrow(error);
      expect(producer.deleted).toBe(1);
    }
  });

  it('refuses an object that is not a DLPack exporter, or a malformed tensor', () => {
    expect(() => StridedMemoryView.fromDLPack({ [DLPACK]: () => ({}) })).toThrow(
      /both Symbol.for\('dlpack'\) and Symbol.for\('dlpack.device'\)/,
    );
    const bad = (tensor: unknown) => ({ [DLPACK]: () => tensor, [DLPACK_DEVICE]: () => [1, 0] });
    expect(() => StridedMemoryView.fromDLPack(bad(null))).toThrow(ProtocolError);
    expect(() =>
      StridedMemoryView.fromDLPack(
        bad({
          version: { major: 1, minor: 0 },
          device: { type: 1, id: 0 },
          dtype: { code: 2, bits: 32, lanes: 1 },
          shape: [1],
          data: 'x',
        }),
      ),
    ).toThrow(/expected a bigint address/);
    expect(() => StridedMemoryView.fromDLPack({ [DLPACK]: () => null, [DLPACK_DEVICE]: () => 'cpu' })).toThrow(
      /expected \[deviceType, deviceId\]/,
    );
  });

  it('sees a detached producer buffer as a closed exporter', () => {
    const data = new Float32Array(4);
    const producer = new HostArray(data.buffer, [4]);
    structuredClone(data.buffer, { transfer: [data.buffer as ArrayBuffer] });
    expect(() => StridedMemoryView.fromDLPack(producer)).toThrow(ExporterClosedError);
    expect(producer.deleted).toBe(1);
  });

  it('honours the read-only flag, and refuses it to a caller that writes', () => {
    const producer = new HostArray(new ArrayBuffer(16), [4]);
    producer.readOnly = true;
    expect(StridedMemoryView.fromDLPack(producer).readonly).toBe(true);
    expect(() => StridedMemoryView.fromDLPack(producer, { writable: true })).toThrow(ReadOnlyViewError);
    expect(producer.deleted).toBe(1); // the refused view gave the tensor back
  });

  it('reads a padded sub-byte tensor as one byte per element', () => {
    const t = {
      version: { major: 1, minor: 3 },
      flags: 4,
      device: { type: 1, id: 0 },
      data: new ArrayBuffer(4),
      dtype: { code: 17, bits: 4, lanes: 1 },
      shape: [4],
    };
    const v = StridedMemoryView.fromDLPack({ [DLPACK]: () => t, [DLPACK_DEVICE]: () => [1, 0] });
    expect([v.dtype.name, v.itemsize, v.nbytes]).toEqual(['float4_e2m1fn', 1, 4]);
    const packed = StridedMemoryView.fromDLPack({
      [DLPACK]: () => ({ ...t, flags: 0 }),
      [DLPACK_DEVICE]: () => [1, 0],
    });
    expect([packed.itemsize, packed.nbytes]).toEqual([0.5, 2]);
  });
});

describe('fromDLPack: device memory and streams', () => {
  it('keeps the pointer a bigint, with byte offset added, on the producer’s device', () => {
    const producer = new DeviceArray(0x7f00_0000_0000n, [2, 3], 1);
    const v = StridedMemoryView.fromDLPack(producer, { stream: 0x99n });
    expect([v.ptr, v.device, v.shape, v.strides, v.buffer]).toEqual([
      0x7f00_0000_0000n,
      { type: 2, id: 1 },
      [2, 3],
      [3, 1],
      undefined,
    ]);
    const t = {
      version: { major: 1, minor: 3 },
      device: { type: 2, id: 0 },
      data: 0x1000n,
      byteOffset: 256,
      dtype: { code: 0, bits: 8, lanes: 1 },
      shape: [1],
    };
    expect(StridedMemoryView.fromDLPack({ [DLPACK]: () => t, [DLPACK_DEVICE]: () => [2, 0] }, { stream: -1 }).ptr).toBe(
      0x1100n,
    );
  });

  it('passes the consumer stream to the producer as DLPack says', () => {
    const producer = new DeviceArray(0x1000n, [4]);
    const stream = { [CUDA_STREAM]: () => ({ version: 0 as const, handle: 0xbeefn }) };
    expect(StridedMemoryView.fromDLPack(producer, { stream }).stream).toBe(0xbeefn);
    StridedMemoryView.fromDLPack(producer, { stream: 0x42n });
    StridedMemoryView.fromDLPack(producer, { stream: 0n }); // CUstream 0: the legacy default stream, 1 in DLPack
    const noSync = StridedMemoryView.fromDLPack(producer, { stream: -1 });
    expect(producer.requests.map((r) => r?.stream)).toEqual([0xbeefn, 0x42n, 1n, -1n]);
    expect(noSync.stream).toBeUndefined();
  });

  it('requires a stream for CUDA memory, and passes pinned and managed memory through', () => {
    expect(() => StridedMemoryView.fromDLPack(new DeviceArray(0x1000n, [4]))).toThrow(StreamRequiredError);
    const pinned = new DeviceArray(0x1000n, [4], 0, 3);
    StridedMemoryView.fromDLPack(pinned);
    StridedMemoryView.fromDLPack(pinned, { stream: 0x5n });
    expect(pinned.requests.map((r) => r?.stream)).toEqual([undefined, 0x5n]);
    const managed = new DeviceArray(0x1000n, [4], 0, 13);
    expect(StridedMemoryView.fromDLPack(managed).device).toEqual({ type: 13, id: 0 });
  });

  it('re-exports a device view: on another stream through the waiter, or refuses without one', () => {
    const v = StridedMemoryView.fromDLPack(new DeviceArray(0x1000n, [4]), { stream: 0x10n });
    expect(() => v[DLPACK]({ stream: 0x20n })).toThrow(StreamOrderError);
    const waits: [bigint, bigint][] = [];
    setDriverHooks({ waitStream: (p, c) => waits.push([p, c]) });
    v[DLPACK]({ stream: 0x20n });
    v[DLPACK]({ stream: 0x10n }); // same stream: nothing to order
    v[DLPACK]({ stream: -1n });
    expect(waits).toEqual([[0x10n, 0x20n]]);
  });
});
