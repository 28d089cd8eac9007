// Pinned and managed memory held as an address (DLPack CUDAHost, CUDAManaged)
// read from JS through the driver hook, with a stand-in hook over a JS
// buffer at a made-up address: what the view asks for, how it lays the
// answer out, and that its memory stays alive while a typed array of it does.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DLPACK,
  DLPACK_DEVICE,
  DLDeviceType,
  MemoryViewError,
  ProtocolError,
  setDriverHooks,
  StridedMemoryView,
  UnsupportedDeviceError,
  type DriverHooks,
} from './index.js';
import { collectUntil } from '../test/gc.js';

const BASE = 0x7f00_0000_0000n;
const PINNED = { type: DLDeviceType.CUDAHost, id: 0 } as const;
const MANAGED = { type: DLDeviceType.CUDAManaged, id: 0 } as const;

afterEach(() => setDriverHooks({}));

/** A hook over `memory` placed at BASE, which records what it was asked. */
function fakeHost(memory: ArrayBuffer): {
  asked: { ptr: bigint; byteLength: number; exporter: unknown; keepAlive: object }[];
  hooks: DriverHooks;
} {
  const asked: { ptr: bigint; byteLength: number; exporter: unknown; keepAlive: object }[] = [];
  const hostBuffer: DriverHooks['hostBuffer'] = (ptr, byteLength, exporter, keepAlive) => {
    asked.push({ ptr, byteLength, exporter, keepAlive });
    const offset = Number(ptr - BASE);
    if (offset < 0 || offset + byteLength > memory.byteLength) throw new RangeError('not host memory');
    return { buffer: memory, byteOffset: offset };
  };
  return { asked, hooks: { hostBuffer } };
}

describe('views of pinned and managed memory at an address', () => {
  it('without a hook, say what to import', () => {
    const v = StridedMemoryView.fromPointer(BASE, { dtype: 'float32', shape: [4], device: PINNED });
    expect(v.isHostAccessible).toBe(false);
    expect(v.isHostReadable).toBe(false);
    expect(() => v.typedArray()).toThrow(UnsupportedDeviceError);
    expect(() => v.typedArray()).toThrow(/pinned memory \(CUDAHost:0\) at an address.*import @cuda-js\/core/);
    expect(() =>
      StridedMemoryView.fromPointer(BASE, { dtype: 'uint8', shape: [4], device: MANAGED }).toTypedArray(),
    ).toThrow(/managed memory \(CUDAManaged:0\)/);
  });

  it('reads and writes zero-copy through the hook, asking once per view for exactly its bytes', () => {
    const memory = new ArrayBuffer(64);
    const { asked, hooks } = fakeHost(memory);
    setDriverHooks(hooks);
    const exporter = { owner: true };
    const v = StridedMemoryView.fromPointer(BASE + 16n, { dtype: 'float32', shape: [2, 3], device: PINNED, exporter });
    expect(v.isHostReadable).toBe(true);
    expect(v.isHostAccessible).toBe(false); // no JS buffer of its own
    const a = v.typedArray() as Float32Array;
    expect(a).toBeInstanceOf(Float32Array);
    expect(a.buffer).toBe(memory);
    expect(a.byteOffset).toBe(16);
    expect(a.length).toBe(6);
    a.set([1, 2, 3, 4, 5, 6]);
    expect(Array.from(new Float32Array(memory, 16, 6))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(asked).toEqual([{ ptr: BASE + 16n, byteLength: 24, exporter, keepAlive: v }]);
    expect(v.typedArray('read')).not.toBe(a);
    expect(asked).toHaveLength(1); // the buffer is kept (weakly) by the view
    expect(Array.from(v.toTypedArray() as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('asks for the bytes of a strided view, negative strides included, and copies in C order', () => {
    const memory = new ArrayBuffer(64);
    new Int32Array(memory).set(Array.from({ length: 16 }, (_, i) => i));
    const { asked, hooks } = fakeHost(memory);
    setDriverHooks(hooks);
    const v = StridedMemoryView.fromPointer(BASE, { dtype: 'int32', shape: [4, 4], device: MANAGED });
    const reversed = v.slice([undefined, undefined, -1], [0, 4, 2]); // rows backwards, every other column
    expect(reversed.strides).toEqual([-4, 2]);
    expect(Array.from(reversed.toTypedArray() as Int32Array)).toEqual([12, 14, 8, 10, 4, 6, 0, 2]);
    expect(asked.at(-1)).toMatchObject({ ptr: BASE, byteLength: 4 * 12 + 4 * 3 });
    expect(() => reversed.typedArray()).toThrow(/not C-contiguous/);
  });

  it('copies into pinned memory from a host array, and from pinned memory into it', () => {
    const memory = new ArrayBuffer(32);
    setDriverHooks(fakeHost(memory).hooks);
    const pinned = StridedMemoryView.fromPointer(BASE, { dtype: 'float32', shape: [4], device: PINNED });
    pinned.copyFrom(new Float32Array([9, 8, 7, 6]));
    expect(Array.from(new Float32Array(memory, 0, 4))).toEqual([9, 8, 7, 6]);
    // overlapping views of the same memory go through a copy
    const head = StridedMemoryView.fromPointer(BASE, { dtype: 'float32', shape: [3], device: PINNED });
    const tail = StridedMemoryView.fromPointer(BASE + 4n, { dtype: 'float32', shape: [3], device: PINNED });
    tail.copyFrom(head);
    expect(Array.from(new Float32Array(memory, 0, 4))).toEqual([9, 9, 8, 7]);
    const out = new Float32Array(4);
    StridedMemoryView.fromTypedArray(out).copyFrom(pinned);
    expect(Array.from(out)).toEqual([9, 9, 8, 7]);
  });

  it('works for a DLPack producer of CUDAHost memory, and exports a host copy on request', () => {
    const memory = new ArrayBuffer(16);
    new Uint8Array(memory).set([1, 2, 3, 4]);
    setDriverHooks(fakeHost(memory).hooks);
    const producer = {
      [DLPACK_DEVICE]: () => [DLDeviceType.CUDAHost, 0] as const,
      [DLPACK]: () => ({
        version: { major: 1, minor: 3 },
        device: PINNED,
        data: BASE,
        dtype: { code: 1, bits: 8, lanes: 1 },
        shape: [4],
        strides: [1],
        flags: 0,
      }),
    };
    const v = StridedMemoryView.fromDLPack(producer);
    expect(Array.from(v.typedArray('read') as Uint8Array)).toEqual([1, 2, 3, 4]);
    const copy = v[DLPACK]({ dlDevice: [DLDeviceType.CPU, 0] });
    expect(copy.device).toEqual({ type: DLDeviceType.CPU, id: 0 });
    expect(Array.from(new Uint8Array(copy.data as ArrayBuffer))).toEqual([1, 2, 3, 4]);
  });

  it('refuses device memory even with a hook, and a hook that answers with less than asked', () => {
    setDriverHooks(fakeHost(new ArrayBuffer(8)).hooks);
    expect(() => StridedMemoryView.fromPointer(BASE, { dtype: 'uint8', shape: [4] }).typedArray()).toThrow(
      UnsupportedDeviceError,
    );
    for (const answer of [
      { buffer: new ArrayBuffer(2), byteOffset: 0 },
      { buffer: new ArrayBuffer(8), byteOffset: -1 },
      { buffer: new Uint8Array(8), byteOffset: 0 },
      null,
      { buffer: new ArrayBuffer(8), byteOffset: 5 },
    ]) {
      setDriverHooks({ hostBuffer: () => answer as never });
      expect(
        () => StridedMemoryView.fromPointer(BASE, { dtype: 'uint8', shape: [4], device: PINNED }).typedArray(),
        JSON.stringify(answer),
      ).toThrow(ProtocolError);
    }
    // the hook's own refusal reaches the caller as is
    setDriverHooks(fakeHost(new ArrayBuffer(8)).hooks);
    expect(() =>
      StridedMemoryView.fromPointer(BASE + 6n, { dtype: 'uint8', shape: [4], device: PINNED }).typedArray(),
    ).toThrow('not host memory');
  });

  it('a closed view refuses new typed arrays; its deleter waits until the typed arrays are collected', async () => {
    // one ArrayBuffer per view, as the native hook makes (the shared one of fakeHost would never be collected)
    setDriverHooks({ hostBuffer: (_ptr, byteLength) => ({ buffer: new ArrayBuffer(byteLength), byteOffset: 0 }) });
    let released = 0;
    let typed: Uint8Array | undefined = StridedMemoryView.fromPointer(BASE, {
      dtype: 'uint8',
      shape: [16],
      device: PINNED,
      release: () => released++,
    }).typedArray() as Uint8Array;
    const view = StridedMemoryView.fromPointer(BASE, {
      dtype: 'uint8',
      shape: [8],
      device: PINNED,
      release: () => released++,
    });
    let kept: Uint8Array | undefined = view.typedArray() as Uint8Array;
    view.close();
    expect(view.closed).toBe(true);
    expect(() => view.typedArray()).toThrow(/closed/);
    expect(released).toBe(0); // a typed array of it is alive
    kept[0] = 1;
    typed = undefined;
    kept = undefined;
    await collectUntil(() => released === 2);
    expect(released).toBe(2);
    void typed;
    void kept;
  });

  it('property: any layout reads exactly its own elements, from bytes that the hook was asked for, or fails by name', () => {
    const memory = new ArrayBuffer(256);
    const bytes = new Uint8Array(memory);
    bytes.forEach((_, i) => (bytes[i] = i));
    const { asked, hooks } = fakeHost(memory);
    setDriverHooks(hooks);
    fc.assert(
      fc.property(
        fc.integer({ min: -16, max: 300 }),
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }),
        fc.array(fc.integer({ min: -40, max: 40 }), { maxLength: 3 }),
        (offset, shape, givenStrides) => {
          const strides = givenStrides.length === shape.length ? givenStrides : undefined;
          let values: number[];
          asked.length = 0;
          try {
            const ptr = BASE + BigInt(offset);
            values = Array.from(
              StridedMemoryView.fromPointer(ptr, {
                dtype: 'uint8',
                shape,
                strides,
                device: PINNED,
              }).toTypedArray() as Uint8Array,
            );
          } catch (error) {
            // the layout's own checks, or the hook's refusal of bytes outside its memory
            expect(
              error instanceof MemoryViewError || (error instanceof RangeError && error.message === 'not host memory'),
            ).toBe(true);
            return;
          }
          // each element read is the byte at its own address, and lies in what the hook was asked for
          const s = strides ?? shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
          const expected: number[] = [];
          const walk = (dim: number, at: number): void => {
            if (dim === shape.length) {
              expected.push(at);
              return;
            }
            for (let i = 0; i < shape[dim]!; i++) walk(dim + 1, at + i * s[dim]!);
          };
          walk(0, offset);
          expect(values).toEqual(expected.map((a) => a & 0xff));
          if (expected.length > 0) {
            const { ptr, byteLength } = asked[0]!;
            for (const a of expected)
              expect(BigInt(a) >= ptr - BASE && BigInt(a) < ptr - BASE + BigInt(byteLength)).toBe(true);
          }
        },
      ),
      { seed: 11, numRuns: 400 },
    );
  });
});
