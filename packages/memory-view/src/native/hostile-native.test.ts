// Property-based tests of the native DLPack helper (fast-check, seeded and bounded):
// the round trip toManagedTensor → fromManagedTensor keeps every view inside its
// memory, and a wrong External is a named error, never a crash.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CUDA_ARRAY_INTERFACE,
  DLDeviceType,
  DLPACK,
  DLPACK_DEVICE,
  DLPACK_EXCHANGE_API,
  ProtocolError,
  StridedMemoryView,
  UnreadableHostMemoryError,
  UnsupportedDeviceError,
  UnsupportedExportError,
} from '../index.js';
import { exchangeApi, fromManagedTensor, nativeHelperStatus, toManagedTensor } from './index.js';
import { FUZZ, hostileDType, hostileExtents, hostileValue, lyingArray, namedOrSound } from '../../test/hostile.js';
import { loadThirdParty, tensorClass, thirdPartyBuild } from '../../test/third-party.js';

const helper = nativeHelperStatus();
const skipReason = !helper.available ? helper.reason : thirdPartyBuild.reason;
if (skipReason !== undefined) console.log(`hostile native tests skipped: ${skipReason}`);
const describeNative = skipReason === undefined ? describe : describe.skip;

describeNative('hostile input: the native round trip', () => {
  const tp = loadThirdParty();

  it('exports and imports only views that lie within their memory', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          lyingArray,
          fc.constantFrom(0, 8, 64).map((n) => new ArrayBuffer(n)),
        ),
        fc.record(
          { dtype: hostileDType, shape: hostileExtents, strides: hostileExtents, byteOffset: hostileValue },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        (source, options, legacy) => {
          const view = namedOrSound(() => StridedMemoryView.fromBuffer(source as ArrayBuffer, options as never));
          if (view === undefined) return;
          const back = namedOrSound(() => fromManagedTensor(toManagedTensor(view, { legacy }), { legacy }));
          if (back === undefined) return;
          expect([...back.shape]).toEqual([...view.shape]);
          if (
            back.isHostAccessible &&
            view.size > 0 &&
            view.size < 4096 &&
            back.itemsize === view.itemsize &&
            Number.isInteger(view.itemsize)
          ) {
            expect(new Uint8Array(back.toTypedArray().buffer)).toEqual(new Uint8Array(view.toTypedArray().buffer));
          }
          back.close();
        },
      ),
      FUZZ,
    );
  });

  it('refuses a wrong External with a named error', () => {
    const slotOf = () => toManagedTensor(new Float32Array([1, 2, 3]));
    expect(() => fromManagedTensor(exchangeApi())).toThrow(ProtocolError);
    expect(() => fromManagedTensor(slotOf(), { legacy: true })).toThrow(ProtocolError);
    expect(() => fromManagedTensor(toManagedTensor(new Float32Array(2), { legacy: true }))).toThrow(ProtocolError);
    expect(() => fromManagedTensor({} as object)).toThrow(ProtocolError);
    const taken = slotOf();
    fromManagedTensor(taken).close();
    expect(() => fromManagedTensor(taken)).toThrow(ProtocolError);
    fc.assert(
      fc.property(
        fc.constantFrom<() => unknown>(
          slotOf,
          () => toManagedTensor(new Uint8Array(4), { legacy: true }),
          () => ({}),
          () => 7,
          () => tp.create(2),
        ),
        (answer) => {
          const obj = { [DLPACK_EXCHANGE_API]: () => answer() };
          try {
            StridedMemoryView.fromAny(obj, { stream: -1 });
          } catch (error) {
            expect(error).toBeInstanceOf(ProtocolError);
          }
        },
      ),
      { ...FUZZ, numRuns: 30 },
    );
  });

  it('keeps an exported buffer’s memory through a transfer, and refuses resizable buffers', () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const slot = toManagedTensor(data);
    const moved = structuredClone(data.buffer, { transfer: [data.buffer] });
    expect(data.byteLength).toBe(0);
    new Float32Array(moved).fill(0.5); // the memory moved to `moved`, and is still the tensor's
    expect(tp.consumeSlot(slot, false)).toBe(2);
    const resizable = new (ArrayBuffer as unknown as new (n: number, o: object) => ArrayBuffer)(16, {
      maxByteLength: 64,
    });
    expect(() => toManagedTensor(new Float32Array(resizable))).toThrow(UnsupportedExportError);
  });

  // Issue 20: host memory that JS does not own never becomes an ArrayBuffer unchecked (this crashed with SIGSEGV).
  it('imports host memory at a made-up address as an address, never as a buffer over it', () => {
    // the three ways issue 20 reached it: fromPointer, a DLPack tensor whose data is 0x1000n on the CPU,
    // and a CUDA array interface object whose DLPack device says CPU
    const cpu = () => [DLDeviceType.CPU, 0];
    const routes = [
      StridedMemoryView.fromPointer(0x1000n, {
        dtype: 'uint8',
        shape: [16],
        device: { type: DLDeviceType.CPU, id: 0 },
      }),
      StridedMemoryView.fromDLPack({
        [DLPACK]: () => ({
          version: { major: 1, minor: 3 },
          flags: 0,
          device: { type: DLDeviceType.CPU, id: 0 },
          data: 0x1000n,
          byteOffset: 0,
          dtype: { code: 1, bits: 8, lanes: 1 },
          shape: [16],
          strides: null,
          deleter() {},
        }),
        [DLPACK_DEVICE]: cpu,
      }),
      StridedMemoryView.fromAny(
        {
          [CUDA_ARRAY_INTERFACE]: () => ({
            shape: [16],
            typestr: '|u1',
            data: [0x1000n, false],
            strides: null,
            version: 3,
          }),
          [DLPACK_DEVICE]: cpu,
        },
        { stream: -1 },
      ),
    ];
    for (const view of routes) {
      expect(view.device).toEqual({ type: DLDeviceType.CPU, id: 0 });
      expect(view.ptr).toBe(0x1000n);
      expect(() => view.toTypedArray()).toThrow(UnsupportedDeviceError);
      for (const legacy of [false, true]) {
        const back = fromManagedTensor(toManagedTensor(view, { legacy }), { legacy });
        expect(back.buffer).toBeUndefined();
        expect(back.ptr).toBe(0x1000n);
        expect(() => back.toTypedArray()).toThrow(UnsupportedDeviceError);
        back.close();
      }
    }
  });

  it('refuses a foreign tensor that says host memory at an unmapped address, and calls its deleter', () => {
    const Tensor = tensorClass(tp);
    for (const address of [0x1000n, 0x10n, 0x7fff_ffff_0000n]) {
      const before = tp.deleted();
      expect(() => fromManagedTensor(tp.makeSlot(tp.createHostAt(address, 16), false, 1))).toThrow(
        UnreadableHostMemoryError,
      );
      expect(tp.deleted()).toBe(before + 1);
      expect(() => StridedMemoryView.fromAny(new Tensor(tp.createHostAt(address, 4)))).toThrow(
        UnreadableHostMemoryError,
      );
    }
    // mapped memory of the producer is still lent zero-copy
    const fine = fromManagedTensor(tp.makeSlot(tp.create(4), false, 1));
    expect(fine.buffer).toBeDefined();
    expect(Array.from(fine.toTypedArray() as Float32Array)).toEqual([0, 1, 2, 3]);
    fine.close();
  });
});
