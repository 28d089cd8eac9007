// ManagedBuffer's advice, prefetch and discard, and the batched forms, against
// a stand-in driver that keeps the advice of one range (no GPU here): what is
// asked of the driver, with which CUmemLocation, and how answers are read
// back into Devices and Hosts, on CUDA 13 drivers and older ones.
import { describe, expect, it, vi, beforeEach } from 'vitest';

interface RangeState {
  readMostly: boolean;
  preferred: { type: number; id: number };
  accessedBy: number[];
  lastPrefetch: { type: number; id: number };
}
const state: RangeState = {
  readMostly: false,
  preferred: { type: 0, id: 0 },
  accessedBy: [],
  lastPrefetch: { type: 0, id: 0 },
};
const calls: unknown[][] = [];
let driverVersion = 13000;

vi.mock('@cuda-js/bindings', async (importOriginal) => {
  const original = await importOriginal<typeof import('@cuda-js/bindings')>();
  const d = original.driver;
  const A = d.CUmem_advise;
  const R = d.CUmem_range_attribute;
  const L = d.CUmemLocationType;
  const ordinalOf = (loc: { type: number; id: number }) =>
    loc.type === L.CU_MEM_LOCATION_TYPE_DEVICE ? loc.id : loc.type === 0 ? -2 : -1;
  return {
    ...original,
    driver: {
      ...d,
      cuInit: () => undefined,
      cuDeviceGetCount: () => 2,
      cuDeviceGet: (ordinal: number) => ordinal,
      cuDriverGetVersion: () => driverVersion,
      cuMemAdvise: (ptr: bigint, count: number, advice: number, location: { type: number; id: number }) => {
        calls.push(['cuMemAdvise', ptr, count, A[advice], location]);
        if (advice === A.CU_MEM_ADVISE_SET_READ_MOSTLY) state.readMostly = true;
        if (advice === A.CU_MEM_ADVISE_UNSET_READ_MOSTLY) state.readMostly = false;
        if (advice === A.CU_MEM_ADVISE_SET_PREFERRED_LOCATION) state.preferred = location;
        if (advice === A.CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION) state.preferred = { type: 0, id: 0 };
        const ordinal = ordinalOf(location);
        if (advice === A.CU_MEM_ADVISE_SET_ACCESSED_BY && !state.accessedBy.includes(ordinal))
          state.accessedBy.push(ordinal);
        if (advice === A.CU_MEM_ADVISE_UNSET_ACCESSED_BY)
          state.accessedBy = state.accessedBy.filter((o) => o !== ordinal);
      },
      cuMemRangeGetAttribute: (data: Int32Array, size: number, attribute: number, ptr: bigint, count: number) => {
        calls.push(['cuMemRangeGetAttribute', R[attribute], size, ptr, count]);
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) data[0] = state.readMostly ? 1 : 0;
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION) data[0] = ordinalOf(state.preferred);
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE) data[0] = state.preferred.type;
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID) data[0] = state.preferred.id;
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION) data[0] = ordinalOf(state.lastPrefetch);
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE) data[0] = state.lastPrefetch.type;
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) data[0] = state.lastPrefetch.id;
        if (attribute === R.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
          data.fill(-2);
          data.set(state.accessedBy.slice(0, size / 4));
        }
      },
      cuMemPrefetchAsync: (
        ptr: bigint,
        count: number,
        location: { type: number; id: number },
        flags: number,
        stream: bigint,
      ) => {
        calls.push(['cuMemPrefetchAsync', ptr, count, location, flags, stream]);
        state.lastPrefetch = location;
      },
      cuMemPrefetchBatchAsync: (...args: unknown[]) => void calls.push(['cuMemPrefetchBatchAsync', ...args]),
      cuMemDiscardBatchAsync: (...args: unknown[]) => void calls.push(['cuMemDiscardBatchAsync', ...args]),
      cuMemDiscardAndPrefetchBatchAsync: (...args: unknown[]) =>
        void calls.push(['cuMemDiscardAndPrefetchBatchAsync', ...args]),
    },
  };
});

const {
  CoreOptionError,
  Device,
  Host,
  ManagedBuffer,
  MemoryArgumentError,
  Buffer,
  prefetchBatch,
  discardBatch,
  discardPrefetchBatch,
} = await import('../index.js');
// The stand-in driver's streams are made-up handles: each is wrapped once, as a foreign stream must be before a bigint of it is taken.
const { Stream: ForeignStream } = await import('@cuda-js/streams');
for (const handle of [0x5n, 0x6n, 0x9n, 0x55n, 0x77n]) ForeignStream.from(handle);
type MemoryResource = import('../index.js').MemoryResource;

const DEVICE = { type: 1, id: 0 };
const DEVICE1 = { type: 1, id: 1 };
const HOST = { type: 2, id: 0 };

// As a ManagedMemoryResource, made for a Device: the locations that the driver reports are Devices that it gives.
function resource(): MemoryResource {
  return {
    isDeviceAccessible: true,
    isHostAccessible: true,
    device: Device.get(0),
    allocate: () => {
      throw new Error('not used');
    },
    deallocate: () => undefined,
  };
}

function managed(ptr = 0x1000n, size = 64): InstanceType<typeof ManagedBuffer> {
  return new ManagedBuffer(ptr, size, resource(), 0x77n);
}

beforeEach(() => {
  calls.length = 0;
  driverVersion = 13000;
  Object.assign(state, {
    readMostly: false,
    preferred: { type: 0, id: 0 },
    accessedBy: [],
    lastPrefetch: { type: 0, id: 0 },
  });
});

describe('ManagedBuffer advice', () => {
  it('readMostly reads the range attribute and gives or withdraws the advice (the host placeholder location)', () => {
    const b = managed();
    expect(b).toBeInstanceOf(Buffer);
    expect(b.readMostly).toBe(false);
    b.readMostly = true;
    expect(b.readMostly).toBe(true);
    b.readMostly = false;
    expect(calls.filter((c) => c[0] === 'cuMemAdvise')).toEqual([
      ['cuMemAdvise', 0x1000n, 64, 'CU_MEM_ADVISE_SET_READ_MOSTLY', HOST],
      ['cuMemAdvise', 0x1000n, 64, 'CU_MEM_ADVISE_UNSET_READ_MOSTLY', HOST],
    ]);
    expect(() => {
      b.readMostly = 1 as never;
    }).toThrow(MemoryArgumentError);
  });

  it('preferredLocation round-trips Devices and Hosts (NUMA nodes on CUDA 13), and undefined withdraws it', () => {
    const b = managed();
    const d1 = Device.get(1);
    expect(b.preferredLocation).toBeUndefined();
    b.preferredLocation = d1;
    expect(b.preferredLocation).toBe(d1);
    b.preferredLocation = new Host({ numaId: 3 });
    expect((b.preferredLocation as InstanceType<typeof Host>).numaId).toBe(3);
    b.preferredLocation = Host.numaCurrent();
    expect(b.preferredLocation).toBe(Host.numaCurrent());
    b.preferredLocation = undefined;
    expect(b.preferredLocation).toBeUndefined();
    expect(calls.filter((c) => c[0] === 'cuMemAdvise').map((c) => [c[3], c[4]])).toEqual([
      ['CU_MEM_ADVISE_SET_PREFERRED_LOCATION', DEVICE1],
      ['CU_MEM_ADVISE_SET_PREFERRED_LOCATION', { type: 3, id: 3 }],
      ['CU_MEM_ADVISE_SET_PREFERRED_LOCATION', { type: 4, id: 0 }],
      ['CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION', HOST],
    ]);
    expect(calls.some((c) => c[1] === 'CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE')).toBe(true);
  });

  it('reads the legacy ordinal attributes on a driver older than CUDA 13', () => {
    driverVersion = 12080;
    const b = managed();
    b.preferredLocation = new Host();
    expect(Host.isHost(b.preferredLocation)).toBe(true);
    b.preferredLocation = Device.get(0);
    expect(b.preferredLocation).toBe(Device.get(0));
    expect(calls.some((c) => c[1] === 'CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION')).toBe(true);
    expect(calls.some((c) => c[1] === 'CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE')).toBe(false);
  });

  it('accessedBy is a live set: add, has, delete, size, iteration, and assignment of exactly those locations', () => {
    const b = managed();
    const [d0, d1] = [Device.get(0), Device.get(1)];
    b.accessedBy.add(d1).add(new Host());
    expect(b.accessedBy.has(d1)).toBe(true);
    expect(b.accessedBy.has(d0)).toBe(false);
    expect(b.accessedBy.has(new Host())).toBe(true);
    expect(b.accessedBy.size).toBe(2);
    expect(b.accessedBy.delete(d1)).toBe(true);
    expect(b.accessedBy.delete(d1)).toBe(false);
    expect([...b.accessedBy].map(String)).toEqual(['Host()']);
    b.accessedBy = [d0, d1];
    expect([...b.accessedBy]).toEqual([d0, d1]);
    // the attribute query is sized for every device and the host
    expect(calls.find((c) => c[1] === 'CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY')?.[2]).toBe(12);
    b.accessedBy.clear();
    expect(b.accessedBy.size).toBe(0);
  });

  it('refuses what the driver would: a NUMA host for accessedBy, anything but a Device or a Host, checked before any advice', () => {
    const b = managed();
    expect(() => b.accessedBy.add(new Host({ numaId: 0 }))).toThrow(/accessedBy takes a Device or new Host\(\)/);
    expect(() => b.accessedBy.add('gpu0' as never)).toThrow(MemoryArgumentError);
    expect(() => {
      b.accessedBy = [Device.get(0), { ordinal: 1 } as never];
    }).toThrow(/a location is a Device or a Host, got Object/);
    expect(() => {
      b.accessedBy = 5 as never;
    }).toThrow(MemoryArgumentError);
    expect(calls.filter((c) => c[0] === 'cuMemAdvise')).toEqual([]);
    expect(() => {
      b.preferredLocation = 0 as never;
    }).toThrow(MemoryArgumentError);
    expect(() => new Host({ numaId: -1 })).toThrow(CoreOptionError);
    expect(() => new Host({ numaId: -1 })).toThrow(
      "Host: option 'numaId' must be a non-negative 32-bit integer; got -1",
    );
    expect(() => new Host({ numa: 1 } as never)).toThrow("Host: unknown option 'numa'; known options: numaId");
    expect(() => new Host({ numaid: 1 } as never)).toThrow("Host: unknown option 'numaid' (did you mean 'numaId'?)");
  });
});

describe('ManagedBuffer prefetch and discard', () => {
  it('prefetches to a location on a stream (default: the allocation stream) and reads the last prefetch location', () => {
    const b = managed();
    b.prefetch(Device.get(0), { stream: 0x55n });
    expect(b.lastPrefetchLocation).toBe(Device.get(0));
    b.prefetch(new Host());
    expect(Host.isHost(b.lastPrefetchLocation)).toBe(true);
    expect(calls.filter((c) => c[0] === 'cuMemPrefetchAsync')).toEqual([
      ['cuMemPrefetchAsync', 0x1000n, 64, DEVICE, 0, 0x55n],
      ['cuMemPrefetchAsync', 0x1000n, 64, HOST, 0, 0x77n],
    ]);
    expect(() => b.prefetch(undefined as never)).toThrow(MemoryArgumentError);
  });

  it('discards and discard-prefetches one buffer through the batched calls', () => {
    const b = managed(0x2000n, 0); // a zero-byte buffer still names its one-byte allocation
    b.discard({ stream: 0x9n });
    b.discardPrefetch(Device.get(1));
    expect(calls).toEqual([
      ['cuMemDiscardBatchAsync', [0x2000n], [1], 0, 0x9n],
      ['cuMemDiscardAndPrefetchBatchAsync', [0x2000n], [1], [DEVICE1], [0], 0, 0x77n],
    ]);
  });

  it('prefetchBatch: one call on CUDA 13 with a location per buffer, one prefetch per buffer before', () => {
    const [a, b, c] = [managed(0x1000n, 16), managed(0x2000n, 32), managed(0x3000n, 48)];
    prefetchBatch(0x5n, [a, b, c], Device.get(0));
    prefetchBatch(0x5n, [a, b, c], [new Host(), Device.get(1), new Host()]);
    expect(calls).toEqual([
      [
        'cuMemPrefetchBatchAsync',
        [0x1000n, 0x2000n, 0x3000n],
        [16, 32, 48],
        [DEVICE, DEVICE, DEVICE],
        [0, 1, 2],
        0,
        0x5n,
      ],
      ['cuMemPrefetchBatchAsync', [0x1000n, 0x2000n, 0x3000n], [16, 32, 48], [HOST, DEVICE1, HOST], [0, 1, 2], 0, 0x5n],
    ]);
    calls.length = 0;
    driverVersion = 12090;
    prefetchBatch(0x5n, [a, b], new Host());
    expect(calls).toEqual([
      ['cuMemPrefetchAsync', 0x1000n, 16, HOST, 0, 0x5n],
      ['cuMemPrefetchAsync', 0x2000n, 32, HOST, 0, 0x5n],
    ]);
  });

  it('discardBatch and discardPrefetchBatch, and what the batched forms refuse', () => {
    const [a, b] = [managed(0x1000n, 16), managed(0x2000n, 32)];
    discardBatch(0x5n, [a, b]);
    discardPrefetchBatch(0x6n, [a, b], [Device.get(1), new Host()]);
    expect(calls).toEqual([
      ['cuMemDiscardBatchAsync', [0x1000n, 0x2000n], [16, 32], 0, 0x5n],
      ['cuMemDiscardAndPrefetchBatchAsync', [0x1000n, 0x2000n], [16, 32], [DEVICE1, HOST], [0, 1], 0, 0x6n],
    ]);
    calls.length = 0;
    const plain = new Buffer(0x4000n, 16, resource(), 0n);
    expect(() => prefetchBatch(0x5n, [a, plain as never], new Host())).toThrow(MemoryArgumentError);
    expect(() => prefetchBatch(0x5n, [a, plain as never], new Host())).toThrow(/buffers\[1\] is not a ManagedBuffer/);
    expect(() => prefetchBatch(0x5n, a as never, new Host())).toThrow(/for one buffer use its own method/);
    expect(() => discardBatch(0x5n, [])).toThrow(MemoryArgumentError);
    expect(() => prefetchBatch(0x5n, [a, b], [new Host()])).toThrow(/1 locations for 2 buffers/);
    expect(() => discardPrefetchBatch(0x5n, [a], ['host' as never])).toThrow(MemoryArgumentError);
    expect(() => prefetchBatch('stream' as never, [a], new Host())).toThrow(TypeError);
    a.close();
    expect(() => prefetchBatch(0x5n, [a], new Host())).toThrow(/Buffer is closed/);
    expect(calls).toEqual([]);
  });
});
