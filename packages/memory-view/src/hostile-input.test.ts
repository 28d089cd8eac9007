// Property-based tests (fast-check, seeded and bounded): every constructor given
// hostile input either throws a named error or yields a view that lies within its
// memory, with integer non-negative extents, integer strides and a valid pointer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  dtype,
  dtypeFromTypestr,
  dtypeOf,
  InvalidLayoutError,
  MemoryViewError,
  OutOfBoundsError,
  StridedMemoryView,
  UnknownDTypeError,
} from './index.js';
import {
  FUZZ,
  hostileDType,
  hostileExtents,
  hostileNumber,
  hostileValue,
  lyingArray,
  namedOrSound,
  twoFacedArray,
} from '../test/hostile.js';
// The hostile ndarrays and Arrow vectors below reach their adapters, not AdapterNotImportedError.
import './adapters/index.js';

const hostBuffer = fc.oneof(
  fc.constantFrom(0, 1, 8, 16, 64).map((n) => new ArrayBuffer(n)),
  fc.constantFrom(8, 16).map((n) => new SharedArrayBuffer(n)),
);

describe('hostile input: fromBuffer', () => {
  it('never yields a view outside its buffer', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostBuffer, lyingArray),
        fc.record(
          { dtype: hostileDType, shape: hostileExtents, strides: hostileExtents, byteOffset: hostileValue },
          { requiredKeys: [] },
        ),
        (source, options) => {
          const view = namedOrSound(() => StridedMemoryView.fromBuffer(source as ArrayBuffer, options as never));
          if (view !== undefined && view.size <= 1 << 16)
            namedOrSound(() => StridedMemoryView.fromAny(view.toTypedArray()));
        },
      ),
      FUZZ,
    );
  });

  it('measures typed arrays by the engine, not by their own properties', () => {
    fc.assert(
      fc.property(lyingArray, (array) => {
        namedOrSound(() => StridedMemoryView.fromAny(array));
        namedOrSound(() => StridedMemoryView.fromTypedArray(array));
        namedOrSound(() => StridedMemoryView.fromBuffer(array));
      }),
      FUZZ,
    );
    const lying = new Float32Array(2);
    Object.defineProperty(lying, 'length', { value: 1 << 20 });
    Object.defineProperty(lying, 'byteOffset', { value: -64 });
    expect(StridedMemoryView.fromAny(lying).shape).toEqual([2]);
    expect(StridedMemoryView.fromAny(lying).byteOffset).toBe(0);
  });
});

describe('hostile input: fromPointer', () => {
  it('refuses addresses below 0, at or past 2^64, and layouts that wrap', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }),
          fc.constantFrom(0n, (1n << 64n) - 1n, 1n << 64n, -1n),
        ),
        fc.record({
          dtype: hostileDType,
          shape: hostileExtents,
          strides: fc.option(hostileExtents, { nil: undefined }),
          device: fc.option(fc.record({ type: hostileValue, id: hostileValue }), { nil: undefined }),
        }),
        (ptr, options) => {
          namedOrSound(() => StridedMemoryView.fromPointer(ptr, options as never));
        },
      ),
      FUZZ,
    );
    expect(() => StridedMemoryView.fromPointer(-1n, { dtype: 'uint8', shape: [1] })).toThrow(OutOfBoundsError);
    expect(() => StridedMemoryView.fromPointer((1n << 64n) - 2n, { dtype: 'float32', shape: [1] })).toThrow(
      OutOfBoundsError,
    );
  });
});

function dlpackExporter(device: unknown, tensor: unknown) {
  return { [DLPACK_DEVICE]: () => device, [DLPACK]: () => tensor };
}

describe('hostile input: fromDLPack', () => {
  it('copies what the tensor says, validated, and is not fooled by later changes', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant([1, 0]), fc.tuple(hostileValue, hostileValue)),
        fc.record({
          version: fc.oneof(
            fc.constant({ major: 1, minor: 3 }),
            fc.record({ major: hostileValue, minor: hostileValue }),
          ),
          flags: fc.option(hostileValue, { nil: undefined }),
          device: fc.oneof(fc.constant({ type: 1, id: 0 }), fc.record({ type: hostileValue, id: hostileValue })),
          data: fc.oneof(hostBuffer, fc.bigInt({ min: -(1n << 65n), max: 1n << 65n })),
          byteOffset: fc.option(hostileValue, { nil: undefined }),
          dtype: hostileDType,
          shape: hostileExtents,
          strides: fc.option(hostileExtents, { nil: null }),
        }),
        (deviceAnswer, fields) => {
          let deleted = 0;
          const tensor = { ...fields, deleter: () => deleted++ };
          const view = namedOrSound(() =>
            StridedMemoryView.fromDLPack(dlpackExporter(deviceAnswer, tensor), { stream: -1 }),
          );
          if (view === undefined) return;
          // The producer's arrays change after the view was made: the view does not.
          const before = [[...view.shape], [...view.strides]];
          if (Array.isArray(fields.shape)) (fields.shape as unknown[]).fill(1e9);
          if (Array.isArray(fields.strides)) (fields.strides as unknown[]).fill(NaN);
          expect([[...view.shape], [...view.strides]]).toEqual(before);
          view.close();
          expect(deleted).toBe(1);
        },
      ),
      FUZZ,
    );
  });

  it('reads a Proxy shape once: 4 then NaN is a shape of 4', () => {
    const tensor = {
      version: { major: 1, minor: 3 },
      device: { type: 1, id: 0 },
      data: new ArrayBuffer(16),
      dtype: { code: 2, bits: 32, lanes: 1 },
      shape: twoFacedArray([4], NaN),
      strides: null,
    };
    const view = StridedMemoryView.fromDLPack(dlpackExporter([1, 0], tensor));
    expect(view.shape).toEqual([4]);
    const negative = { ...tensor, shape: [4], byteOffset: -4 };
    expect(() => StridedMemoryView.fromDLPack(dlpackExporter([1, 0], negative))).toThrow(MemoryViewError);
  });
});

describe('hostile input: fromCudaArrayInterface', () => {
  it('never yields a view with a bad pointer or layout', () => {
    fc.assert(
      fc.property(
        fc.record({
          version: fc.oneof(fc.constant(3), hostileValue),
          typestr: fc.oneof(fc.constantFrom('<f4', '|u1', '<f8', '<c8', '>f4', '|V2'), hostileValue),
          shape: hostileExtents,
          strides: fc.option(hostileExtents, { nil: null }),
          data: fc.oneof(
            fc.tuple(fc.oneof(fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }), hostileNumber), fc.boolean()),
            hostileValue,
          ),
          stream: fc.option(hostileValue, { nil: undefined }),
        }),
        (cai) => {
          namedOrSound(() =>
            StridedMemoryView.fromCudaArrayInterface({ [CUDA_ARRAY_INTERFACE]: () => cai }, { stream: -1 }),
          );
        },
      ),
      FUZZ,
    );
  });
});

describe('hostile input: fromAny', () => {
  const hostileObject = fc.oneof(
    lyingArray,
    fc.record({
      data: fc.oneof(lyingArray, hostileValue),
      shape: hostileExtents,
      stride: hostileExtents,
      offset: hostileValue,
    }),
    fc.record({
      data: fc.oneof(
        lyingArray,
        fc.record({
          buffer: hostBuffer,
          byteOffset: hostileValue,
          length: hostileValue,
          BYTES_PER_ELEMENT: hostileValue,
        }),
      ),
      dtype: fc.constantFrom<unknown>('float32', 'float64', 'complex64', 'uint8', 'int16', 'generic'),
      shape: hostileExtents,
      strides: hostileExtents,
      offset: hostileValue,
      order: fc.constant('row-major'),
    }),
    fc.record({
      type: fc.record({
        typeId: fc.constantFrom(2, 3, 6, 16),
        bitWidth: hostileValue,
        isSigned: fc.boolean(),
        precision: hostileValue,
        listSize: hostileValue,
      }),
      data: fc.array(
        fc.record({ offset: hostileValue, length: hostileValue, nullCount: fc.constant(0), values: lyingArray }),
        { maxLength: 3 },
      ),
      length: hostileValue,
    }),
    fc.constant(Object.create(StridedMemoryView.prototype) as object),
  );
  it('views hostile host objects soundly or names the refusal', () => {
    fc.assert(
      fc.property(hostileObject, (obj) => {
        namedOrSound(() => StridedMemoryView.fromAny(obj));
      }),
      FUZZ,
    );
  });
});

describe('hostile input: dtypes', () => {
  it('keys the dtype cache without collisions and validates every field', () => {
    expect(dtype('float32x2')).toBe(dtypeOf(2, 32, 2));
    expect(() => dtypeOf(258, 31, 2)).toThrow(UnknownDTypeError);
    expect(() => dtype({ code: 2, bits: 'length', lanes: 1 } as never)).toThrow(UnknownDTypeError);
    fc.assert(
      fc.property(hostileValue, hostileValue, hostileValue, (code, bits, lanes) => {
        let t: ReturnType<typeof dtypeOf>;
        try {
          t = dtypeOf(code as number, bits as number, lanes as number);
        } catch (error) {
          expect(error).toBeInstanceOf(UnknownDTypeError);
          return;
        }
        expect([t.code, t.bits, t.lanes]).toEqual([code, bits, lanes]);
        expect(t.itemsize > 0).toBe(true);
      }),
      FUZZ,
    );
  });

  it('formats bigints and cycles in its own messages', () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    for (const value of [
      1n,
      circular,
      Symbol('s'),
      {
        toString: () => {
          throw new Error('no');
        },
      },
    ]) {
      expect(() => dtypeFromTypestr(value as never)).toThrow(UnknownDTypeError);
      expect(() => dtype(value as never)).toThrow(UnknownDTypeError);
    }
  });

  it('refuses to copy a broadcast larger than the host copy limit, before allocating', () => {
    const broadcast = StridedMemoryView.fromBuffer(new ArrayBuffer(4), {
      dtype: 'float32',
      shape: [2 ** 31, 4],
      strides: [0, 0],
    });
    expect(() => broadcast.toTypedArray()).toThrow(OutOfBoundsError);
    expect(() =>
      StridedMemoryView.fromBuffer(new ArrayBuffer(4), { shape: [2 ** 40, 2 ** 20], strides: [0, 0] }),
    ).toThrow(InvalidLayoutError);
  });
});
