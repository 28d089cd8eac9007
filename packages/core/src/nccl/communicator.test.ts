import { ClosedResourceError, LibraryNotFoundError, nccl } from '@cuda-js/bindings';
import { DLDeviceType, dtype, ReadOnlyViewError, StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import {
  CollectiveArgumentError,
  CoreOptionError,
  CollectiveWork,
  Communicator,
  CommunicatorStateError,
  DeviceMismatchError,
  REDUCIBLE_DTYPES,
} from '../index.js';
import { callDType, checkCollectiveOverlap, collectiveMemory, elementCount } from './collective-memory.js';
import { Buffer, type MemoryResource } from '../index.js';
import { applyNcclEnvironmentDefaults } from './nccl-environment.js';
import { dtypeOption, ncclElementType, reduceOp } from './nccl-types.js';
import { decodeUniqueId, encodeUniqueId } from './unique-id.js';
import { errorOf } from '@cuda-js/test-support/errors';

// The collectives layer without NCCL and without a GPU: every bad argument is
// a named error before any library or driver call, so these hold on this
// machine, on one without libcuda, and on a GPU host. NCCL is made absent by
// an override that names no file (each test file runs in its own process).
const MISSING = '/nonexistent/cuda-js-test/libnccl.so.2';
process.env['CUDA_JS_LIB_NCCL'] = MISSING;

const ID = encodeUniqueId(new Uint8Array(128).map((_, i) => i));
const device0 = { ordinal: 0 };
/** A view of made-up device memory: memory-view needs no driver to describe it. */
const deviceView = (
  options: { id?: number; shape?: number[]; strides?: number[]; dtype?: string; readonly?: boolean } = {},
) =>
  StridedMemoryView.fromPointer(0x7000_0000n, {
    dtype: options.dtype ?? 'float32',
    shape: options.shape ?? [8],
    strides: options.strides,
    device: { type: DLDeviceType.CUDA, id: options.id ?? 0 },
    readonly: options.readonly,
  });

describe('Communicator where NCCL cannot be found', () => {
  it('uniqueId, version and group throw LibraryNotFoundError naming nccl and where it looked', () => {
    for (const call of [
      () => Communicator.uniqueId(),
      () => Communicator.version,
      () => Communicator.group(() => undefined),
    ]) {
      const e = errorOf(call);
      expect(e).toBeInstanceOf(LibraryNotFoundError);
      expect(e.message).toContain("CUDA library 'nccl' was not found");
      expect(e.message).toContain(`CUDA_JS_LIB_NCCL=${MISSING}`);
    }
  });

  it('sets NCCL_NVLS_ENABLE=0 before the first NCCL call, for this process and its children, unless it is set', () => {
    const before = process.env['NCCL_NVLS_ENABLE'];
    try {
      delete process.env['NCCL_NVLS_ENABLE'];
      expect(() => Communicator.uniqueId()).toThrow(LibraryNotFoundError);
      expect(process.env['NCCL_NVLS_ENABLE']).toBe('0');
      process.env['NCCL_NVLS_ENABLE'] = '1';
      applyNcclEnvironmentDefaults();
      expect(process.env['NCCL_NVLS_ENABLE']).toBe('1');
    } finally {
      if (before === undefined) delete process.env['NCCL_NVLS_ENABLE'];
      else process.env['NCCL_NVLS_ENABLE'] = before;
    }
  });

  it('a group left by a failure is closed: the next call is not taken as grouped', () => {
    expect(() => Communicator.group(() => undefined)).toThrow(LibraryNotFoundError);
    expect(() => Communicator.group(() => undefined)).toThrow(LibraryNotFoundError);
    expect(() => Communicator.group('fn' as unknown as () => void)).toThrow(TypeError);
  });
});

describe('Communicator.initRank and initAll check their arguments first', () => {
  it('refuses ids that are not 128 bytes of base64, or of bytes', () => {
    for (const id of [
      '',
      'abc',
      ID.slice(0, -1),
      `${ID.slice(0, -2)}B=`,
      `${ID.slice(0, -1)}A`,
      ID.replace('A', '*'),
      new Uint8Array(127),
      new Uint8Array(129),
      42,
      null,
    ]) {
      const e = errorOf(() => Communicator.initRank({ id: id as string, rank: 0, worldSize: 1 }));
      expect(e, String(id)).toBeInstanceOf(CollectiveArgumentError);
      expect(e.message).toMatch(/Communicator\.initRank: a unique id is/);
    }
  });

  it('refuses ranks, world sizes, devices and options that cannot be', () => {
    const cases: [object, RegExp][] = [
      [{ id: ID, rank: 1, worldSize: 1 }, /rank must be an integer in \[0, 1\), got 1/],
      [{ id: ID, rank: -1, worldSize: 2 }, /rank must be an integer in \[0, 2\), got -1/],
      [{ id: ID, rank: 0, worldSize: 0 }, /worldSize must be a positive integer, got 0/],
      [{ id: ID, rank: 0, worldSize: 1.5 }, /worldSize must be a positive integer, got 1\.5/],
      [{ id: ID, rank: 0, worldSize: 1, device: -1 }, /device must be a Device or a device ordinal, got -1/],
      [{ id: ID, rank: 0, worldSize: 1, device: '0' }, /device must be a Device or a device ordinal, got '0'/],
    ];
    for (const [options, message] of cases) {
      const e = errorOf(() => Communicator.initRank(options as never));
      expect(e, message.source).toBeInstanceOf(CollectiveArgumentError);
      expect(e.message).toMatch(message);
    }
    expect(() => Communicator.initRank(null as never)).toThrow(CollectiveArgumentError);
    const unknown = errorOf(() => Communicator.initRank({ id: ID, rank: 0, worldSize: 1, ranks: 2 } as never));
    expect(unknown).toBeInstanceOf(CoreOptionError);
    expect(unknown.message).toMatch(
      /unknown option 'ranks' \(did you mean 'rank'\?\); known options: id, rank, worldSize, device/,
    );
  });

  it('refuses empty, repeated or malformed device lists', () => {
    expect(() => Communicator.initAll([])).toThrow(/devices must be a non-empty array/);
    expect(() => Communicator.initAll([0, 0])).toThrow(/device 0 is listed twice/);
    expect(() => Communicator.initAll([0, 1.5])).toThrow(/devices\[1\] must be a Device or a device ordinal, got 1\.5/);
    expect(() => Communicator.initAll('0' as never)).toThrow(CollectiveArgumentError);
  });
});

describe('unique ids', () => {
  it('are 128 bytes as canonical base64, both ways', () => {
    const bytes = new Uint8Array(128).map((_, i) => (i * 37) & 0xff);
    const text = encodeUniqueId(bytes);
    expect(text).toHaveLength(172);
    expect(decodeUniqueId(text, 'x')).toEqual(bytes);
    expect(decodeUniqueId(bytes, 'x')).toEqual(bytes);
    expect(decodeUniqueId(bytes, 'x')).not.toBe(bytes);
  });
});

describe('element types and reductions', () => {
  it('maps memory-view dtypes to NCCL types; others move as bytes but do not reduce', () => {
    expect(ncclElementType(dtype('float32'), true, 'x')).toEqual({
      type: nccl.ncclDataType_t.ncclFloat32,
      elementsPerItem: 1,
    });
    expect(ncclElementType(dtype('int32'), true, 'x')).toEqual({
      type: nccl.ncclDataType_t.ncclInt32,
      elementsPerItem: 1,
    });
    expect(ncclElementType(dtype('bfloat16'), true, 'x').type).toBe(nccl.ncclDataType_t.ncclBfloat16);
    expect(ncclElementType(dtype('float8_e4m3fn'), true, 'x').type).toBe(nccl.ncclDataType_t.ncclFloat8e4m3);
    expect(ncclElementType(dtype('int16'), false, 'x')).toEqual({
      type: nccl.ncclDataType_t.ncclUint8,
      elementsPerItem: 2,
    });
    expect(ncclElementType(dtype('complex64'), false, 'x')).toEqual({
      type: nccl.ncclDataType_t.ncclUint8,
      elementsPerItem: 8,
    });
    expect(ncclElementType(dtype('float32').withLanes(4), false, 'x')).toEqual({
      type: nccl.ncclDataType_t.ncclUint8,
      elementsPerItem: 16,
    });
    expect(() => ncclElementType(dtype('int16'), true, 'Communicator.allReduce')).toThrow(
      /Communicator\.allReduce: NCCL cannot reduce int16; reductions take int8, uint8, int32/,
    );
    // issue 20: allReduce with dtype bool or complex64 "completed" on the H200; each is refused before NCCL
    for (const name of ['bool', 'complex64', 'complex128', 'int16']) {
      expect(() => ncclElementType(dtype(name), true, 'Communicator.allReduce')).toThrow(CollectiveArgumentError);
    }
    expect(() => ncclElementType(dtype('float32').withLanes(4), true, 'x')).toThrow(/NCCL cannot reduce/);
    expect(() => ncclElementType(dtype('float4_e2m1fn'), false, 'x')).toThrow(/fractions of a byte/);
    expect(REDUCIBLE_DTYPES).toContain('float64');
  });

  it('knows the five reductions, sum by default', () => {
    expect(reduceOp(undefined, 'x')).toBe(nccl.ncclRedOp_t.ncclSum);
    expect(reduceOp('max', 'x')).toBe(nccl.ncclRedOp_t.ncclMax);
    expect(reduceOp('avg', 'x')).toBe(nccl.ncclRedOp_t.ncclAvg);
    for (const op of ['mean', 'toString', 2, null])
      expect(() => reduceOp(op, 'x')).toThrow(/op must be one of sum, prod, max, min, avg/);
  });

  it('reads dtype options by memory-view names, and names what it cannot read', () => {
    expect(dtypeOption('float64', 'x')).toBe(dtype('float64'));
    expect(dtypeOption(undefined, 'x')).toBeUndefined();
    expect(() => dtypeOption('float33', 'Communicator.send')).toThrow(CollectiveArgumentError);
  });
});

describe('the memory of a collective', () => {
  it('takes dense device views of its own device, with their dtype and bytes', () => {
    const m = collectiveMemory(deviceView({ shape: [2, 4] }), 'send', device0, 1n, false, 'x');
    expect(m).toMatchObject({ ptr: 0x7000_0000n, byteLength: 32 });
    expect(m.dtype).toBe(dtype('float32'));
    expect(
      collectiveMemory(deviceView({ shape: [2, 4], strides: [1, 2] }), 'recv', device0, 1n, true, 'x').byteLength,
    ).toBe(32); // column-major is dense too
  });

  it('refuses host memory, memory of another device, strided views and read-only outputs, by name', () => {
    const host = errorOf(() =>
      collectiveMemory(new Float32Array(4), 'send', device0, 1n, false, 'Communicator.allReduce'),
    );
    expect(host).toBeInstanceOf(CollectiveArgumentError);
    expect(host.message).toMatch(
      /Communicator\.allReduce: send: NCCL reads and writes device memory: this is host memory/,
    );
    const pinned = StridedMemoryView.fromPointer(0x1000n, {
      dtype: 'float32',
      shape: [4],
      device: { type: DLDeviceType.CUDAHost, id: 0 },
    });
    expect(() => collectiveMemory(pinned, 'send', device0, 1n, false, 'x')).toThrow(/this is host memory/);
    const other = errorOf(() =>
      collectiveMemory(deviceView({ id: 1 }), 'recv', device0, 1n, true, 'Communicator.allGather'),
    );
    expect(other).toBeInstanceOf(DeviceMismatchError);
    expect(other.message).toBe(
      'Communicator.allGather: recv lives on Device(1), but the communicator is on Device(0); NCCL takes memory of its own device',
    );
    expect(() => collectiveMemory(deviceView({ shape: [4], strides: [2] }), 'send', device0, 1n, false, 'x')).toThrow(
      /is strided \(shape \[4\], strides \[2\]\); NCCL takes dense memory/,
    );
    const readOnly = errorOf(() => collectiveMemory(deviceView({ readonly: true }), 'recv', device0, 1n, true, 'x'));
    expect(readOnly).toBeInstanceOf(CollectiveArgumentError);
    expect((readOnly as Error & { cause: unknown }).cause).toBeInstanceOf(ReadOnlyViewError);
    expect(() => collectiveMemory(3, 'send', device0, 1n, false, 'x')).toThrow(
      /send must be a Buffer or an array \(any viewable object\), got 3/,
    );
    expect(() => collectiveMemory({}, 'send', device0, 1n, false, 'x')).toThrow(CollectiveArgumentError);
  });

  it('needs one dtype for the call, and whole elements', () => {
    const f32 = collectiveMemory(deviceView(), 'send', device0, 1n, false, 'x');
    const i32 = collectiveMemory(deviceView({ dtype: 'int32' }), 'recv', device0, 1n, true, 'x');
    const bytes = { ptr: 0x1000n, byteLength: 10, dtype: undefined, source: {} };
    expect(callDType(undefined, [f32, bytes], 'x')).toBe(dtype('float32'));
    expect(callDType(dtype('int64'), [bytes, undefined], 'x')).toBe(dtype('int64'));
    expect(() => callDType(undefined, [bytes], 'Communicator.send')).toThrow(
      /a Buffer has no element type: pass \{ dtype \}/,
    );
    expect(() => callDType(undefined, [f32, i32], 'x')).toThrow(/the arrays' dtypes differ \(float32 and int32\)/);
    expect(() => callDType(dtype('float64'), [f32], 'x')).toThrow(/dtypes differ \(float64 and float32\)/);
    expect(elementCount(bytes, dtype('int16'), 'send', 'x')).toBe(5);
    expect(() => elementCount(bytes, dtype('float32'), 'send', 'x')).toThrow(
      /send has 10 bytes, not a whole number of float32 elements/,
    );
  });
});

describe('collective memory that NCCL would misread (issue 20)', () => {
  /** A device-accessible Buffer at `ptr` that no driver ever sees. */
  const bufferAt = (ptr: bigint, size: number): Buffer => {
    const resource: MemoryResource = {
      isDeviceAccessible: true,
      isHostAccessible: false,
      device: { ordinal: 0 } as never,
      allocate: () => {
        throw new Error('not used');
      },
      deallocate: () => undefined,
      deallocateAsync: () => Promise.resolve(),
    };
    return new Buffer(ptr, size, resource, 0n);
  };

  it('refuses a closed Buffer, a view of one, and a closed view, by name', () => {
    const buffer = bufferAt(0x7000_0000n, 64);
    const view = StridedMemoryView.fromAny(buffer, { stream: -1 }).view({ dtype: 'float32', shape: [16] });
    expect(collectiveMemory(view, 'send', device0, 1n, false, 'x').byteLength).toBe(64);
    buffer.close();
    expect(() => collectiveMemory(buffer, 'send', device0, 1n, false, 'x')).toThrow(ClosedResourceError);
    const viewed = errorOf(() => collectiveMemory(view, 'send', device0, 1n, false, 'Communicator.allReduce'));
    expect(viewed).toBeInstanceOf(CollectiveArgumentError);
    expect(viewed.message).toMatch(/^Communicator\.allReduce: send is memory of a closed Buffer/);
    const own = deviceView();
    own.close();
    expect(() => collectiveMemory(own, 'recv', device0, 1n, true, 'x')).toThrow(CollectiveArgumentError);
  });

  it('refuses send and recv that overlap other than in place', () => {
    const form = 'send and recv the same memory';
    expect(() => checkCollectiveOverlap(0x1000n, 64, 0x1000n, 64, 0x1000n, form, 'x')).not.toThrow(); // in place
    expect(() => checkCollectiveOverlap(0x1000n, 64, 0x1040n, 64, 0x1040n, form, 'x')).not.toThrow(); // adjacent
    expect(() => checkCollectiveOverlap(0x1000n, 0, 0x1000n, 64, 0x2000n, form, 'x')).not.toThrow(); // nothing read
    const e = errorOf(() => checkCollectiveOverlap(0x1000n, 64, 0x1020n, 64, 0x1020n, form, 'Communicator.allReduce'));
    expect(e).toBeInstanceOf(CollectiveArgumentError);
    expect(e.message).toBe(
      "Communicator.allReduce: send [0x1000, 0x1040) and recv [0x1020, 0x1060) overlap, but not in place (send and recv the same memory); NCCL's result over overlapping memory is undefined: pass the same memory, or memory apart",
    );
    // allGather of rank 1: send in place is recv's second block; the first block is not
    expect(() => checkCollectiveOverlap(0x1010n, 16, 0x1000n, 64, 0x1010n, 'block', 'x')).not.toThrow();
    expect(() => checkCollectiveOverlap(0x1000n, 16, 0x1000n, 64, 0x1010n, 'block', 'x')).toThrow(
      /overlap, but not in place \(block\)/,
    );
  });
});

describe('CollectiveWork', () => {
  it('is awaitable once its events are known; a group that has not ended, or failed, says so', async () => {
    const done = new CollectiveWork([], []);
    expect(done.isDone).toBe(true);
    await done;
    const pending = new CollectiveWork([]);
    expect(pending.isDone).toBe(false);
    await expect(pending.completed()).rejects.toBeInstanceOf(CommunicatorStateError);
    expect(() => pending.synchronize()).toThrow(/part of a Communicator\.group\(\) that has not ended/);
    pending._complete([]);
    await pending;
    const failed = new CollectiveWork([]);
    const why = new Error('the group failed');
    failed._fail(why);
    await expect(failed).rejects.toBe(why);
  });
});
