// Property-based tests (fast-check, seeded and bounded) of the native
// boundary of host views and host functions: whatever JS passes, the answer
// is a named error (TypeError, RangeError for argument types and sizes;
// HostViewError where the driver does not vouch for the memory; CudaError or
// LibraryNotFoundError from the driver itself), never a crash and never a view
// of memory that the driver did not report. Runs with or without a GPU: the
// pointers are made up, and the driver is asked about them, nothing more.
import {
  CudaError,
  HostViewError,
  hostArrayBuffer,
  launchBlockingHostFunc,
  LibraryNotFoundError,
} from '@cuda-js/bindings';
import { launchHostFunction } from '@cuda-js/streams';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CoreOptionError, MemoryArgumentError } from '../errors.js';
import { Host } from './host.js';
import { memLocationOf } from './managed-location.js';

// The long, nightly mode (CUDA_JS_FUZZ_RUNS, CUDA_JS_FUZZ_SEED) runs every input it is given, with no time limit.
const LONG = fuzzParameters(400);
const FUZZ = LONG.long
  ? { seed: LONG.seed, numRuns: LONG.numRuns }
  : ({ seed: 7, numRuns: 400, interruptAfterTimeLimit: 8000 } as const);

const NAMED = [TypeError, RangeError, HostViewError, CudaError, LibraryNotFoundError];
function expectNamed(error: unknown): void {
  expect(
    NAMED.some((kind) => error instanceof kind),
    `${String(error)}`,
  ).toBe(true);
  expect((error as Error).message.length).toBeGreaterThan(0);
}

const hostileNumber = fc.oneof(
  fc.integer({ min: -8, max: 1 << 20 }),
  fc.constantFrom(
    NaN,
    Infinity,
    -Infinity,
    -0,
    0.5,
    2 ** 31,
    2 ** 32,
    2 ** 32 + 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e300,
  ),
  fc.double(),
);
const hostileAddress = fc.oneof(
  fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }),
  fc.bigInt({ min: 0n, max: 1n << 20n }),
  fc.constantFrom(-1n, 0n, 1n, 0x1000n, 0x7fff_ffff_f000n, (1n << 64n) - 1n, 1n << 64n),
  hostileNumber,
);
const hostileSize = fc.oneof(
  hostileNumber,
  fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }),
  fc.constantFrom<unknown>('16', null, undefined, {}, [16], true),
);
const hostileValue = fc.constantFrom<unknown>(
  undefined,
  null,
  0,
  1,
  'owner',
  Symbol('s'),
  true,
  1n,
  () => undefined,
  {},
  [],
  new ArrayBuffer(8),
  new Uint8Array(4),
);

describe('hostile input: hostArrayBuffer', () => {
  it('views only what the driver vouches for; everything else is a named error', () => {
    fc.assert(
      fc.property(hostileAddress, hostileSize, hostileValue, (ptr, size, owner) => {
        let view: ArrayBuffer;
        try {
          view = hostArrayBuffer(ptr as never, size as never, owner as never);
        } catch (error) {
          expectNamed(error);
          return;
        }
        // nothing made up is host memory that CUDA allocated
        expect.unreachable(`a view of ${String(ptr)} (${String(size)} bytes) was made: ${view.byteLength}`);
      }),
      FUZZ,
    );
  });

  it('checks types and sizes before asking the driver', () => {
    expect(() => hostArrayBuffer(1 as never, 1, {})).toThrow(TypeError);
    expect(() => hostArrayBuffer(0x1000n, 1, 1 as never)).toThrow(/parameter 'owner' must be an object or a function/);
    expect(() => hostArrayBuffer(0x1000n, -1, {})).toThrow(RangeError);
    expect(() => hostArrayBuffer(0x1000n, 2 ** 32 + 1, {})).toThrow(/more than one view may hold/);
    expect(() => hostArrayBuffer((1n << 64n) - 8n, 16, {})).toThrow(/reaches past 2\^64/);
    expect(() => hostArrayBuffer(0n, 16, {})).toThrow(HostViewError);
    expect(() => hostArrayBuffer(0n, 16, {})).toThrow("hostArrayBuffer: parameter 'ptr' is NULL (0n)");
    expect(() => (hostArrayBuffer as (...a: unknown[]) => unknown)(0x1000n, 16)).toThrow(/parameter 'owner'/);
  });
});

describe('hostile input: host functions', () => {
  // Streams are only the special handles: a made-up CUstream is the caller's promise, as everywhere in the bindings.
  const stream = fc.oneof(fc.constantFrom<unknown>(0n, 1n, 2n), hostileValue, hostileNumber);
  const callback = fc.oneof(
    hostileValue,
    fc.constant(() => undefined),
  );

  it('launchBlockingHostFunc: a named error, or a launch; never a call of the callback on this stack', () => {
    fc.assert(
      fc.property(stream, callback, (s, cb) => {
        let called = false;
        const f = typeof cb === 'function' ? () => void (called = true) : cb;
        try {
          launchBlockingHostFunc(s as never, f as never);
        } catch (error) {
          expectNamed(error);
        }
        expect(called).toBe(false);
      }),
      { ...FUZZ, numRuns: 150 },
    );
  });

  it('launchHostFunction: a TypeError for what is not a function or a stream, before the driver', () => {
    fc.assert(
      fc.property(fc.oneof(hostileValue, hostileNumber), (fn) => {
        if (typeof fn === 'function') return;
        expect(() => launchHostFunction(0n, fn as never)).toThrow(TypeError);
      }),
      { ...FUZZ, numRuns: 100 },
    );
    expect(() => launchHostFunction('stream' as never, () => 1)).toThrow(TypeError);
  });
});

describe('hostile input: managed-memory locations', () => {
  it('only Devices and Hosts are locations; a NUMA host is no accessedBy location', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileValue,
          hostileNumber,
          fc.record({ ordinal: fc.integer(), type: fc.integer(), id: fc.integer() }),
        ),
        fc.constantFrom('prefetch', 'preferredLocation', 'accessedBy' as const),
        (value, use) => {
          expect(() => memLocationOf(value, use as never, 'test')).toThrow(MemoryArgumentError);
        },
      ),
      { ...FUZZ, numRuns: 200 },
    );
    expect(memLocationOf(new Host(), 'accessedBy', 'test')).toEqual({ type: 2, id: 0 });
    expect(memLocationOf(new Host({ numaId: 2 }), 'prefetch', 'test')).toEqual({ type: 3, id: 2 });
    expect(() => memLocationOf(new Host({ numaId: 2 }), 'accessedBy', 'test')).toThrow(MemoryArgumentError);
    expect(() => memLocationOf(Host.numaCurrent(), 'accessedBy', 'test')).toThrow(MemoryArgumentError);
    fc.assert(
      fc.property(fc.oneof(hostileValue, hostileNumber), (numaId) => {
        try {
          const h = new Host({ numaId } as never);
          expect(numaId === undefined || (Number.isInteger(numaId) && (numaId as number) >= 0)).toBe(true);
          expect(h.numaId).toBe(numaId);
        } catch (error) {
          expect(error).toBeInstanceOf(CoreOptionError);
        }
      }),
      { ...FUZZ, numRuns: 100 },
    );
  });
});
