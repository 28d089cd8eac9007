import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  StridedMemoryView,
  type DLPackRequest,
  type DLPackTensor,
} from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ArgumentLayout } from './argument-layout.js';
import { Buffer } from '../memory/buffer.js';
import { LaunchArgumentError } from '../errors.js';
import { LaunchPlan } from '../device/launch-plan.js';
import type { MemoryResource } from '../memory/memory-resources.js';
import { bool, f32, f64, i32, i64, u8 } from './scalar.js';

// Ordering a stream after another needs the driver: count the calls instead.
vi.mock('@cuda-js/streams', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@cuda-js/streams')>()),
  orderStreams: vi.fn(),
}));
const ordered = vi.mocked(orderStreams);

/** A plan over consecutive parameters of the given sizes, each aligned to its size (as the C ABI lays them out). */
function planOf(sizes: readonly number[], layout: ArgumentLayout): LaunchPlan {
  let offset = 0;
  const parameters = sizes.map((size) => {
    offset = Math.ceil(offset / size) * size;
    const p = { offset, size };
    offset += size;
    return p;
  });
  return new LaunchPlan({ handle: 0x1234n, name: 'k', parameters }, layout);
}

function bytesOf(plan: LaunchPlan): DataView {
  const b = plan.parameterBytes;
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

const device = (
  ptr: bigint,
  shape: number[],
  options: { strides?: number[]; dtype?: string; stream?: bigint; readonly?: boolean; id?: number } = {},
) =>
  StridedMemoryView.fromPointer(ptr, {
    dtype: options.dtype ?? 'float32',
    shape,
    ...(options.strides ? { strides: options.strides } : {}),
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    readonly: options.readonly ?? false,
    device: { type: 2, id: options.id ?? 0 },
  });

beforeEach(() => ordered.mockClear());

describe('LaunchPlan with an argument layout', () => {
  it('writes typed scalars from numbers, bigints, booleans and core Scalars, as the slot type', () => {
    const plan = planOf(
      [4, 8, 1, 8, 4, 8],
      [
        { kind: 'scalar', type: 'f32' },
        { kind: 'scalar', type: 'f64' },
        { kind: 'scalar', type: 'bool' },
        { kind: 'scalar', type: 'u64' },
        { kind: 'scalar', type: 'i32' },
        { kind: 'scalar', type: 'i64' },
      ],
    );
    plan.pack([2.5, 1.25, true, 2n ** 64n - 1n, -7, -(2n ** 40n)], 1n);
    let v = bytesOf(plan);
    expect([
      v.getFloat32(0, true),
      v.getFloat64(8, true),
      v.getUint8(16),
      v.getBigUint64(24, true),
      v.getInt32(32, true),
      v.getBigInt64(40, true),
    ]).toEqual([2.5, 1.25, 1, 2n ** 64n - 1n, -7, -(2n ** 40n)]);
    // a Scalar is written as the slot's type; a number fits an i64, a safe bigint an i32
    plan.pack([f64(0.5), f32(3), bool(false), 12, 5n, i32(-3)], 1n);
    v = bytesOf(plan);
    expect([
      v.getFloat32(0, true),
      v.getFloat64(8, true),
      v.getUint8(16),
      v.getBigUint64(24, true),
      v.getInt32(32, true),
      v.getBigInt64(40, true),
    ]).toEqual([0.5, 3, 0, 12n, 5, -3n]);
  });

  it('range-checks scalars as Scalar.of does, naming the argument', () => {
    const plan = planOf(
      [4, 1, 8],
      [
        { kind: 'scalar', type: 'i32', name: 'n' },
        { kind: 'scalar', type: 'u8' },
        { kind: 'scalar', type: 'u64' },
      ],
    );
    expect(() => plan.pack([1.5, 0, 0n], 1n)).toThrow(LaunchArgumentError);
    expect(() => plan.pack([1.5, 0, 0n], 1n)).toThrow(
      "k: argument 0 ('n'): 1.5 cannot be passed as i32: i32() takes an integer, got 1.5",
    );
    expect(() => plan.pack([2 ** 31, 0, 0n], 1n)).toThrow('i32(): 2147483648 is outside');
    expect(() => plan.pack([0, 256, 0n], 1n)).toThrow(/argument 1: 256 cannot be passed as u8/);
    expect(() => plan.pack([0, u8(1), -1n], 1n)).toThrow(
      /argument 2: -1n cannot be passed as u64: u64\(\): -1 is outside/,
    );
    expect(() => plan.pack([true, 0, 0n], 1n)).toThrow('true cannot be passed as i32');
    expect(() => plan.pack(['1', 0, 0n], 1n)).toThrow('a string cannot be passed as i32');
    expect(() => plan.pack([0, 0], 1n)).toThrow('the kernel takes 3 argument(s), 2 were given');
    const flag = planOf([1], [{ kind: 'scalar', type: 'bool' }]);
    expect(() => flag.pack([1], 1n)).toThrow('bool() takes a boolean, got number');
    expect(() => flag.pack([i64(1)], 1n)).toThrow('cannot be passed as bool');
  });

  it('writes an array as its pointer, then ndim i64 extents, then ndim i64 strides in elements', () => {
    const plan = planOf(
      [4, 8, 8, 8, 8, 8],
      [
        { kind: 'scalar', type: 'f32' },
        { kind: 'array', ndim: 2, shape: true, strides: true, dtype: 'f32' },
      ],
    );
    const x = device(0xabc000n, [3, 5], { strides: [-10, 2] });
    plan.pack([1, x], 1n);
    const v = bytesOf(plan);
    expect(v.getBigUint64(8, true)).toBe(0xabc000n);
    expect([16, 24, 32, 40].map((o) => v.getBigInt64(o, true))).toEqual([3n, 5n, -10n, 2n]);
  });

  it('passes extents only, or strides only, as the slot says', () => {
    const shapeOnly = planOf([8, 8, 8, 8], [{ kind: 'array', ndim: 3, shape: true }]);
    shapeOnly.pack([device(0x10n, [2, 3, 4])], 1n);
    const a = bytesOf(shapeOnly);
    expect([8, 16, 24].map((o) => a.getBigInt64(o, true))).toEqual([2n, 3n, 4n]);
    const stridesOnly = planOf([8, 8], [{ kind: 'array', ndim: 1, strides: true }]);
    stridesOnly.pack([device(0x10n, [9], { strides: [3] })], 1n);
    expect(bytesOf(stridesOnly).getBigInt64(8, true)).toBe(3n);
  });

  it('checks the array against the slot: dimensions, dtype, layout, writability, memory', () => {
    const plan = planOf([8], [{ kind: 'array', ndim: 2, dtype: 'float32', layout: 'C', writable: true, name: 'y' }]);
    expect(() => plan.pack([device(0x10n, [4])], 1n)).toThrow(
      "k: argument 0 ('y'): the array has 1 dimension(s), the kernel takes 2",
    );
    expect(() => plan.pack([device(0x10n, [2, 2], { dtype: 'int32' })], 1n)).toThrow(
      'the array holds int32, the kernel takes float32',
    );
    expect(() => plan.pack([device(0x10n, [2, 2], { strides: [1, 2] })], 1n)).toThrow(
      'the kernel takes a C-contiguous array; this one has strides [1, 2]',
    );
    expect(() => plan.pack([device(0x10n, [2, 2], { readonly: true })], 1n)).toThrow(
      'the kernel writes the array, and the view is read-only',
    );
    expect(() =>
      plan.pack([StridedMemoryView.fromBuffer(new Float32Array(4), { dtype: 'float32', shape: [2, 2] })], 1n),
    ).toThrow('host memory the GPU cannot address');
    expect(() => plan.pack([new Float32Array(4)], 1n)).toThrow('host memory the GPU cannot address');
    expect(() => plan.pack([{}], 1n)).toThrow(/argument 0 \('y'\): not an array that cuda-js can view/);
    expect(() => plan.pack([7], 1n)).toThrow('cannot pass number as an array');
    const closed = device(0x10n, [2, 2]);
    closed.close();
    expect(() => plan.pack([closed], 1n)).toThrow('the view is closed');
    const fortran = planOf([8], [{ kind: 'array', ndim: 2, layout: 'F' }]);
    expect(() => fortran.pack([device(0x10n, [2, 3], { strides: [1, 2] })], 1n)).not.toThrow();
    expect(() => fortran.pack([device(0x10n, [2, 3])], 1n)).toThrow('F-contiguous');
  });

  it('writes an unchanged view once, and refuses it once it is closed', () => {
    const plan = planOf([8, 8], [{ kind: 'array', ndim: 1, shape: true }]);
    const x = device(0x1000n, [8]);
    plan.pack([x], 1n);
    plan.pack([x], 1n);
    expect(bytesOf(plan).getBigInt64(8, true)).toBe(8n);
    plan.pack([device(0x2000n, [16])], 1n);
    expect(bytesOf(plan).getBigUint64(0, true)).toBe(0x2000n);
    x.close();
    expect(() => plan.pack([x], 1n)).toThrow('the view is closed');
  });

  it('takes a bigint address only for an array slot that passes just its pointer, refusing it before asking the driver', () => {
    const withShape = planOf([8, 8], [{ kind: 'array', ndim: 1, shape: true, name: 'x' }]);
    expect(() => withShape.pack([0x1000n], 1n)).toThrow(LaunchArgumentError);
    expect(() => withShape.pack([0x1000n], 1n)).toThrow(
      "k: argument 0 ('x'): a bigint address carries no extents or strides, and the kernel reads this array's extents; pass an array",
    );
    const withStrides = planOf([8, 8], [{ kind: 'array', ndim: 1, strides: true }]);
    expect(() => withStrides.pack([0x1000n], 1n)).toThrow("the kernel reads this array's strides");
    const twoD = planOf([8], [{ kind: 'array', ndim: 2 }]);
    expect(() => twoD.pack([0x1000n], 1n)).toThrow('a bigint address carries no extents or strides');
    const pointerOnly = planOf([8], [{ kind: 'array', ndim: 1, dtype: 'uint8' }]);
    expect(() => pointerOnly.pack([0n], 1n)).toThrow('0 is no device address');
    expect(() => pointerOnly.pack([-5n], 1n)).toThrow('-5 is no device address');
    expect(() => pointerOnly.pack([2n ** 64n], 1n)).toThrow('18446744073709551616 is no device address');
  });

  it('orders the launch stream after the stream a view was made for, on every launch', () => {
    const plan = planOf([8], [{ kind: 'array', ndim: 1 }]);
    const onS = device(0x1000n, [4], { stream: 0x5000n });
    plan.pack([onS], 0x5000n); // made for the launch stream: nothing to wait for
    expect(ordered).not.toHaveBeenCalled();
    plan.pack([onS], 0x7000n);
    plan.pack([onS], 0x7000n); // unchanged, not written again, but still ordered
    expect(ordered.mock.calls).toEqual([
      [0x5000n, 0x7000n],
      [0x5000n, 0x7000n],
    ]);
    ordered.mockClear();
    // the default stream: CUstream 0 is the protocol's 1 (legacy)
    const onDefault = device(0x1000n, [4], { stream: 0n });
    plan.pack([onDefault], 0n);
    expect(ordered).not.toHaveBeenCalled();
    plan.pack([device(0x1000n, [4])], 0x7000n); // a view with no stream: nothing to wait for
    expect(ordered).not.toHaveBeenCalled();
  });

  it('views CUDA array interface objects implicitly, reading extents and byte strides, and skips a frozen answer seen before', () => {
    let calls = 0;
    const answer = Object.freeze({
      shape: Object.freeze([2, 3]),
      typestr: '<f8',
      data: Object.freeze([0x9000n, false] as const),
      strides: Object.freeze([8, 16]),
      version: 3,
    });
    const cai = { [CUDA_ARRAY_INTERFACE]: () => (calls++, answer), [DLPACK_DEVICE]: () => [2, 0] as const };
    const plan = planOf(
      [8, 8, 8, 8, 8],
      [{ kind: 'array', ndim: 2, shape: true, strides: true, dtype: 'f64', layout: 'F' }],
    );
    plan.pack([cai], 1n);
    const v = bytesOf(plan);
    expect([v.getBigUint64(0, true), ...[8, 16, 24, 32].map((o) => v.getBigInt64(o, true))]).toEqual([
      0x9000n,
      2n,
      3n,
      1n,
      2n,
    ]);
    const before = calls;
    plan.pack([cai], 1n);
    expect(calls).toBe(before + 1); // asked once, found unchanged
    const fresh = {
      [CUDA_ARRAY_INTERFACE]: () => ({ shape: [4], typestr: '<f4', data: [0xa000n, false], version: 3 }),
    };
    const plan1 = planOf([8], [{ kind: 'array', ndim: 1, dtype: 'float64' }]);
    expect(() => plan1.pack([fresh], 1n)).toThrow('the array holds float32, the kernel takes float64');
  });

  it('orders the launch stream after a CUDA array interface producer stream, on every launch', () => {
    const cai = {
      [CUDA_ARRAY_INTERFACE]: () => ({ shape: [4], typestr: '<f4', data: [0xa000n, false], version: 3, stream: 0x42 }),
    };
    const plan = planOf([8], [{ kind: 'array', ndim: 1 }]);
    ordered.mockClear();
    plan.pack([cai], 0x7000n);
    plan.pack([cai], 0x7000n); // the same answer again: nothing written, still ordered
    expect(ordered.mock.calls).toEqual([
      [0x42n, 0x7000n],
      [0x42n, 0x7000n],
    ]);
  });

  it('views DLPack objects implicitly, asking the producer for the launch stream', () => {
    const requests: (DLPackRequest | undefined)[] = [];
    let deleted = 0;
    const array = {
      [DLPACK_DEVICE]: () => [2, 0] as const,
      [DLPACK]: (request?: DLPackRequest): DLPackTensor => {
        requests.push(request);
        return {
          version: { major: 1, minor: 3 },
          device: { type: 2, id: 0 },
          data: 0xb000n,
          dtype: { code: 0, bits: 32, lanes: 1 },
          shape: [5],
          strides: [2],
          deleter: () => void deleted++,
        };
      },
    };
    const plan = planOf([8, 8, 8], [{ kind: 'array', ndim: 1, shape: true, strides: true, dtype: 'i32' }]);
    plan.pack([array], 0n);
    expect(requests[0]?.stream).toBe(1n);
    const v = bytesOf(plan);
    expect([v.getBigUint64(0, true), v.getBigInt64(8, true), v.getBigInt64(16, true)]).toEqual([0xb000n, 5n, 2n]);
    plan.pack([array], 0x7000n);
    expect(requests[1]?.stream).toBe(0x7000n);
    expect(deleted).toBe(0); // the export is held until the plan lets go of it
  });

  it('passes a Buffer as its bytes, and asks for a typed view where the slot wants another dtype', () => {
    const resource = {
      isDeviceAccessible: true,
      isHostAccessible: false,
      device: undefined,
      deallocate: () => undefined,
    } as unknown as MemoryResource;
    const buffer = new Buffer(0xc000n, 64, resource, 0n);
    const bytes = planOf([8, 8, 8], [{ kind: 'array', ndim: 1, shape: true, strides: true, dtype: 'uint8' }]);
    bytes.pack([buffer], 1n);
    const v = bytesOf(bytes);
    expect([v.getBigUint64(0, true), v.getBigInt64(8, true), v.getBigInt64(16, true)]).toEqual([0xc000n, 64n, 1n]);
    const floats = planOf([8], [{ kind: 'array', ndim: 1, dtype: 'f32' }]);
    expect(() => floats.pack([buffer], 1n)).toThrow(
      'a Buffer is bytes (uint8, 1-D), the kernel takes float32 array of 1 dimension(s); pass a typed view of it',
    );
    buffer.close();
    expect(() => bytes.pack([buffer], 1n)).toThrow('the Buffer is closed');
  });
});

describe('argument layouts', () => {
  it('are checked against the kernel parameters they fill', () => {
    expect(() =>
      planOf(
        [4, 8],
        [
          { kind: 'scalar', type: 'f64' },
          { kind: 'array', ndim: 1 },
        ],
      ),
    ).toThrow('k: argument 0: the layout puts a f64 (8 bytes) in kernel parameter 0, which is 4 bytes');
    expect(() => planOf([8, 8], [{ kind: 'array', ndim: 1, shape: true, strides: true }])).toThrow(
      'k: argument 0: the layout puts stride 0 (i64) in kernel parameter 2, but the kernel has only 2 parameter(s)',
    );
    expect(() => planOf([8, 8], [{ kind: 'array', ndim: 1 }])).toThrow(
      'the argument layout fills 1 kernel parameter(s), but the kernel has 2',
    );
    expect(() => planOf([8], [{ kind: 'array', ndim: 0 }])).toThrow("an array slot's ndim must be a positive integer");
    expect(() => planOf([8], [{ kind: 'scalar', type: 'f128' as never }])).toThrow("unknown scalar type 'f128'");
    expect(() => planOf([8], [{ kind: 'pointer' } as never])).toThrow("a slot is { kind: 'scalar', type }");
    expect(() => planOf([8], [{ kind: 'array', ndim: 1, dtype: 'float99' }])).toThrow(/unknown dtype name 'float99'/);
    const plan = planOf(
      [4, 8, 8],
      [
        { kind: 'scalar', type: 'i32' },
        { kind: 'array', ndim: 1, shape: true },
      ],
    );
    expect(plan.argumentCount).toBe(2);
    expect(plan.layout).toHaveLength(2);
  });
});
