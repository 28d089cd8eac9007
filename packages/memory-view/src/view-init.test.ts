// `new StridedMemoryView(init)`: every field of the init object is checked, and
// hostile init objects (fast-check, seeded and bounded) give a named error or a
// view that lies within its memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CUDA_STREAM,
  DLDeviceType,
  DLPackFlags,
  dtype,
  ExporterClosedError,
  InvalidLayoutError,
  OutOfBoundsError,
  ReadOnlyViewError,
  StridedMemoryView,
  UnknownDTypeError,
  UnsupportedDeviceError,
  type StridedMemoryViewInit,
} from './index.js';
import { FUZZ, hostileDType, hostileExtents, hostileValue, lyingArray, namedOrSound } from '../test/hostile.js';
import { values } from '../test/values.js';

const make = (init: unknown): StridedMemoryView => new StridedMemoryView(init as StridedMemoryViewInit);

describe('new StridedMemoryView(init)', () => {
  it('views device memory at an address: compact strides and CUDA device 0 by default', () => {
    const owner = { name: 'allocation' };
    const v = new StridedMemoryView({
      ptr: 0x7f00_0000_1000n,
      shape: [2, 3],
      dtype: 'float32',
      exporter: owner,
      stream: 0x55n,
    });
    expect([
      v.ptr,
      v.buffer,
      v.byteOffset,
      v.shape,
      v.strides,
      v.dtype,
      v.device,
      v.flags,
      v.exporter,
      v.stream,
    ]).toEqual([
      0x7f00_0000_1000n,
      undefined,
      0,
      [2, 3],
      [3, 1],
      dtype('float32'),
      { type: DLDeviceType.CUDA, id: 0 },
      0,
      owner,
      0x55n,
    ]);
    expect(StridedMemoryView.isView(v)).toBe(true);
    expect(Object.isFrozen(v.shape) && Object.isFrozen(v.strides)).toBe(true);
  });

  it('views a JS buffer at a byte offset, on the CPU by default, zero-copy', () => {
    const data = new Float32Array([0, 1, 2, 3, 4, 5, 6, 7]);
    const v = new StridedMemoryView({
      buffer: data.buffer,
      byteOffset: 8,
      shape: [3],
      strides: [2],
      dtype: 'float32',
      flags: DLPackFlags.READ_ONLY,
    });
    expect([v.device, v.readonly, values(v)]).toEqual([{ type: DLDeviceType.CPU, id: 0 }, true, [2, 4, 6]]);
    expect(() => v.typedArray()).toThrow(ReadOnlyViewError);
    const w = new StridedMemoryView({ buffer: data.buffer, shape: [2, 2], dtype: dtype('float32') });
    (w.typedArray() as Float32Array)[3] = 42;
    expect(data[3]).toBe(42);
  });

  it('takes the stream as a handle, a stream object or -1 (none)', () => {
    const at = { ptr: 0x1000n, shape: [4], dtype: 'uint8' } as const;
    expect(new StridedMemoryView({ ...at, stream: -1 }).stream).toBeUndefined();
    expect(
      new StridedMemoryView({ ...at, stream: { [CUDA_STREAM]: () => ({ version: 0, handle: 0x99n }) } }).stream,
    ).toBe(0x99n);
    expect(() => make({ ...at, stream: 5 })).toThrow(TypeError);
  });

  it('runs release exactly once, when the family of views is closed', () => {
    let released = 0;
    const v = new StridedMemoryView({ ptr: 0x2000n, shape: [16], dtype: 'uint8', release: () => released++ });
    const part = v.slice([0, 8]);
    part.close();
    v.close();
    expect([released, v.closed, part.closed]).toEqual([1, true, true]);
  });

  it('reads each field once and keeps no caller array', () => {
    const reads = new Map<PropertyKey, number>();
    const shape = [2, 2];
    const init = new Proxy(
      { buffer: new ArrayBuffer(16), shape, dtype: 'float32' },
      {
        get(target, key, receiver) {
          reads.set(key, (reads.get(key) ?? 0) + 1);
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const v = make(init);
    shape[0] = 1000;
    expect(v.shape).toEqual([2, 2]);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
  });

  it('refuses each bad field with its named error', () => {
    const buffer = new ArrayBuffer(16);
    const cases: [unknown, new (...args: never[]) => Error, RegExp][] = [
      [undefined, TypeError, /init object/],
      [{ shape: [4], dtype: 'uint8' }, InvalidLayoutError, /give ptr .* or buffer/],
      [{ ptr: 0x10n, buffer, shape: [4], dtype: 'uint8' }, InvalidLayoutError, /not both/],
      [
        { buffer: new Uint8Array(16), shape: [4], dtype: 'uint8' },
        InvalidLayoutError,
        /ArrayBuffer or a SharedArrayBuffer/,
      ],
      [{ ptr: 0x10n, byteOffset: 4, shape: [4], dtype: 'uint8' }, InvalidLayoutError, /add it to ptr/],
      [{ buffer, byteOffset: -1, shape: [4], dtype: 'uint8' }, InvalidLayoutError, /byteOffset/],
      [{ buffer, byteOffset: 1, shape: [4], dtype: 'float32' }, OutOfBoundsError, /reaches bytes \[1, 17\)/],
      [{ buffer, shape: [2], strides: [-1], dtype: 'float32' }, OutOfBoundsError, /reaches bytes/],
      [{ buffer, shape: [4], strides: [1, 1], dtype: 'uint8' }, InvalidLayoutError, /strides has 2 entries/],
      [{ buffer, shape: [-1], dtype: 'uint8' }, InvalidLayoutError, /extents must be non-negative/],
      [{ buffer, shape: [4], dtype: 'float3' }, UnknownDTypeError, /unknown dtype/],
      [{ buffer, shape: [4], dtype: 'uint8', flags: 8 }, InvalidLayoutError, /not DLPackFlags bits/],
      [{ buffer, shape: [4], dtype: 'uint8', flags: 2 ** 32 + 1 }, InvalidLayoutError, /not DLPackFlags bits/],
      [
        { buffer, shape: [4], dtype: 'uint8', device: { type: DLDeviceType.CUDA, id: 0 } },
        UnsupportedDeviceError,
        /a JS buffer is host memory/,
      ],
      [
        { ptr: 0x10n, shape: [4], dtype: 'uint8', device: { type: 0, id: 0 } },
        UnsupportedDeviceError,
        /not a DLPack device/,
      ],
      [{ ptr: 0x10, shape: [4], dtype: 'uint8' }, OutOfBoundsError, /expected a bigint/],
      [{ ptr: (1n << 64n) - 2n, shape: [4], dtype: 'uint8' }, OutOfBoundsError, /outside \[0, 2\^64\)/],
      [{ ptr: 0x10n, shape: [4], strides: [-8], dtype: 'uint8' }, OutOfBoundsError, /outside \[0, 2\^64\)/],
      [{ ptr: 0x10n, shape: [4], dtype: 'uint8', release: 'later' }, TypeError, /release must be a function/],
    ];
    for (const [init, error, message] of cases) {
      expect(
        () => make(init),
        JSON.stringify(init, (_, x) => (typeof x === 'bigint' ? `${x}n` : x)),
      ).toThrow(error);
      expect(() => make(init)).toThrow(message);
    }
    const detached = new ArrayBuffer(8);
    structuredClone(detached, { transfer: [detached] });
    expect(() => make({ buffer: detached, shape: [0], dtype: 'uint8' })).toThrow(ExporterClosedError);
  });

  it('bounds packed and padded sub-byte types by the bytes they take', () => {
    const buffer = new ArrayBuffer(4);
    expect(make({ buffer, shape: [8], dtype: 'float4_e2m1fn' }).nbytes).toBe(4);
    expect(() => make({ buffer, shape: [9], dtype: 'float4_e2m1fn' })).toThrow(OutOfBoundsError);
    const padded = make({ buffer, shape: [4], dtype: 'float4_e2m1fn', flags: DLPackFlags.IS_SUBBYTE_TYPE_PADDED });
    expect(padded.itemsize).toBe(1);
    expect(() =>
      make({ buffer, shape: [5], dtype: 'float4_e2m1fn', flags: DLPackFlags.IS_SUBBYTE_TYPE_PADDED }),
    ).toThrow(OutOfBoundsError);
  });

  it('lets pinned and managed memory live in a JS buffer', () => {
    const v = make({
      buffer: new ArrayBuffer(8),
      shape: [2],
      dtype: 'float32',
      device: { type: DLDeviceType.CUDAHost, id: 0 },
    });
    expect([v.device.type, v.isHostAccessible, v.isDeviceAccessible]).toEqual([DLDeviceType.CUDAHost, true, true]);
  });
});

// Mostly well-formed fields with hostile ones mixed in, so that the runs make views as well as refuse them.
const mostly = <T, U>(usual: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>): fc.Arbitrary<T | U> =>
  fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: hostile });
const absent = fc.constant(undefined);
const hostileBuffer = mostly(
  fc.oneof(
    fc.constantFrom(0, 1, 8, 16, 64, 256).map((n) => new ArrayBuffer(n)),
    fc.constant(new SharedArrayBuffer(64)),
  ),
  fc.oneof(lyingArray, hostileValue),
);
const hostilePtr = mostly(
  fc.bigInt({ min: 0n, max: 1n << 20n }),
  fc.oneof(fc.constantFrom(0n, (1n << 64n) - 8n, (1n << 64n) - 1n, 1n << 64n, -1n), hostileValue),
);
const hostileMemory = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      buffer: hostileBuffer,
      byteOffset: mostly(fc.oneof(absent, fc.integer({ min: 0, max: 64 })), hostileValue),
    }),
  },
  { weight: 4, arbitrary: fc.record({ ptr: hostilePtr, byteOffset: mostly(absent, hostileValue) }) },
  { weight: 1, arbitrary: fc.record({ ptr: fc.oneof(absent, hostilePtr), buffer: fc.oneof(absent, hostileBuffer) }) },
);
const hostileFields = fc.record({
  shape: mostly(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }), hostileExtents),
  strides: mostly(absent, fc.oneof(fc.array(fc.integer({ min: -8, max: 8 }), { maxLength: 3 }), hostileExtents)),
  dtype: mostly(fc.constantFrom('uint8', 'float32', 'float64', 'complex64', 'float4_e2m1fn'), hostileDType),
  device: mostly(
    fc.oneof(absent, fc.record({ type: fc.constantFrom(1, 2, 3, 13), id: fc.constantFrom(0, 1) })),
    fc.oneof(fc.record({ type: hostileValue, id: hostileValue }), hostileValue),
  ),
  flags: mostly(fc.oneof(absent, fc.integer({ min: 0, max: 7 })), hostileValue),
  exporter: fc.anything(),
  stream: mostly(fc.constantFrom<unknown>(undefined, -1, 0n, 0x10n), fc.constantFrom<unknown>(5, {}, null)),
  release: mostly(
    fc.constantFrom<unknown>(undefined, () => {}),
    fc.constantFrom<unknown>('later', null),
  ),
});
const hostileInit = fc.tuple(hostileMemory, hostileFields).map(([memory, fields]) => ({ ...memory, ...fields }));

describe('hostile input: new StridedMemoryView(init)', () => {
  it('never yields a view past its memory', () => {
    let made = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 19, arbitrary: hostileInit }, { weight: 1, arbitrary: hostileValue }), (init) => {
        const view = namedOrSound(() => make(init));
        if (view === undefined) refused++;
        else {
          made++;
          // The memory is the one that was given, not a look-alike.
          const given = init as { ptr?: unknown; buffer?: unknown };
          if (view.buffer !== undefined) expect(view.buffer).toBe(given.buffer);
          else expect(view.ptr).toBe(given.ptr);
        }
      }),
      FUZZ,
    );
    // Both outcomes occur: the property is not vacuous.
    expect(made).toBeGreaterThan(FUZZ.numRuns / 20);
    expect(refused).toBeGreaterThan(FUZZ.numRuns / 20);
  });

  it('agrees with fromPointer on the inits that both take', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 48n }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
        fc.constantFrom('uint8', 'float32', 'complex128'),
        (ptr, shape, name) => {
          const a = new StridedMemoryView({ ptr, shape, dtype: name });
          const b = StridedMemoryView.fromPointer(ptr, { shape, dtype: name });
          expect([a.ptr, a.shape, a.strides, a.dtype, a.device, a.flags]).toEqual([
            b.ptr,
            b.shape,
            b.strides,
            b.dtype,
            b.device,
            b.flags,
          ]);
        },
      ),
      FUZZ,
    );
  });
});
