// Property-based tests (fast-check, seeded and bounded) of everything that
// another process hands to IPC: allocation handles, buffer descriptors, event
// descriptors, and the native pidfd boundary under them. Whatever arrives,
// a malformed value is an IpcError before any driver or system call (the
// same everywhere: with a GPU, without one, without libcuda); a well-formed
// one gets past the checks to the next step, which the fakes here stop with
// a sentinel (or the driver answers with its own error), never a crash.
import { closeSync } from 'node:fs';
import { Buffer as NodeBuffer } from 'node:buffer';
import { CudaError, duplicateFdFromProcess, FdDuplicationError, LibraryNotFoundError } from '@cuda-js/bindings';
import { decodeIpcPayload, encodeIpcPayload, Event } from '@cuda-js/streams';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Buffer, type Device, DeviceMemoryResource, IpcError, PinnedMemoryResource } from '../../index.js';

// The long, nightly mode (CUDA_JS_FUZZ_RUNS, CUDA_JS_FUZZ_SEED) runs every input it is given, with no time limit.
const LONG = fuzzParameters(400);
const FUZZ = LONG.long
  ? { seed: LONG.seed, numRuns: LONG.numRuns }
  : ({ seed: 2024, numRuns: 400, interruptAfterTimeLimit: 8000 } as const);

/** Thrown by the fakes: the value got past every check to the first real step. */
class Reached extends Error {}

/** A Device whose every use is the first real step (the checks must come before it). */
const unreachableDevice = new Proxy(
  {},
  {
    get: () => {
      throw new Reached('device');
    },
  },
) as Device;

/** A resource that says it was imported (a real one, by its constructor: a look-alike object is refused): a valid descriptor reaches its pool. */
class ImportedLike extends DeviceMemoryResource {
  override get isIpcEnabled(): boolean {
    return true;
  }
  override get isImported(): boolean {
    return true;
  }
  override get pool(): never {
    throw new Reached('pool');
  }
}
const importedResource: DeviceMemoryResource = new ImportedLike(unreachableDevice);

const base64Of = (bytes: Uint8Array): string => NodeBuffer.from(bytes).toString('base64');
const valid64 = fc.uint8Array({ minLength: 64, maxLength: 64 }).map(base64Of);

/** Base64 text that is not the canonical spelling of 64 bytes. */
const notCanonical64 = fc.oneof(
  fc
    .uint8Array({ maxLength: 80 })
    .filter((b) => b.length !== 64)
    .map(base64Of),
  valid64.map((s) => s.slice(0, 86)), // padding left out (Node.js would still decode it)
  valid64.map((s) => `${s.slice(0, 85)}B==`), // a last character whose low bits are not zero decodes to the same bytes
  valid64.map((s) => `${s.slice(0, 40)}\n${s.slice(40)}`),
  valid64.map((s) => ` ${s}`),
  valid64.map((s) => s.replaceAll('+', '-').replaceAll('/', '_')), // base64url
  valid64.map((s) => `${s}=`),
  fc.string({ maxLength: 100 }),
);

const hostileNumber = fc.oneof(
  fc.integer({ min: -8, max: 1 << 20 }),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0.5, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e300),
  fc.double(),
);
const notANumber = fc.constantFrom<unknown>(undefined, null, '16', 16n, {}, [], true, [16]);
const hostileValue = fc.oneof(hostileNumber, notANumber, fc.string({ maxLength: 8 }), valid64);

/**
 * Well-formed values and their near misses: as made, with one field replaced
 * by a hostile value, one field left out, or a field added; plus records of
 * any of the fields and arbitrary values.
 */
function variantsOf(
  valid: fc.Arbitrary<Record<string, unknown>>,
  hostileFields: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<unknown> {
  const names = Object.keys(hostileFields);
  const field = fc.constantFrom(...names);
  return fc.oneof(
    { weight: 2, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, field, fc.oneof(...names.map((n) => hostileFields[n]!)))
        .map(([v, name, value]) => ({ ...v, [name]: value })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, field)
        .map(([v, name]) => Object.fromEntries(Object.entries(v).filter(([k]) => k !== name))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('extra', 'Size', 'handle', 'DATA'), hostileValue)
        .map(([v, name, value]) => ({ ...v, [name]: value })),
    },
    { weight: 1, arbitrary: fc.record(hostileFields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.anything() },
  );
}

/** Whether a value is a plain object whose own keys are exactly `keys` (undefined values count as absent ones), all data properties. */
function hasExactly(
  value: unknown,
  required: readonly string[],
  optional: readonly string[] = [],
): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false;
  const keys = Reflect.ownKeys(value);
  if (keys.some((k) => typeof k !== 'string' || (!required.includes(k) && !optional.includes(k)))) return false;
  return required.every((k) => (value as Record<string, unknown>)[k] !== undefined);
}
const isCanonical64 = (v: unknown): boolean =>
  typeof v === 'string' && /^[A-Za-z0-9+/]{86}==$/.test(v) && NodeBuffer.from(v, 'base64').toString('base64') === v;
const isSize = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function outcome(f: () => unknown): unknown {
  try {
    f();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('hostile input: IPC buffer descriptors', () => {
  const valid = fc.record({
    data: valid64,
    size: fc.oneof(fc.integer({ min: 0, max: 1 << 30 }), fc.constantFrom(0, 2 ** 53 - 1)),
  });
  const descriptors = variantsOf(valid, {
    data: fc.oneof(notCanonical64, hostileValue),
    size: fc.oneof(hostileNumber, notANumber),
  });

  it('a malformed descriptor is an IpcError about the descriptor; a well-formed one reaches the pool', () => {
    fc.assert(
      fc.property(descriptors, (descriptor) => {
        const error = outcome(() => Buffer.fromIpcDescriptor(importedResource, descriptor as never));
        const wellFormed =
          hasExactly(descriptor, ['data', 'size']) && isCanonical64(descriptor['data']) && isSize(descriptor['size']);
        if (wellFormed) expect(error).toBeInstanceOf(Reached);
        else {
          expect(error, String(error)).toBeInstanceOf(IpcError);
          expect((error as Error).message).toMatch(/^Buffer\.fromIpcDescriptor: the descriptor/);
        }
      }),
      FUZZ,
    );
  });

  it('a well-formed descriptor is refused for a resource that did not import a pool, before the driver', () => {
    const descriptor = { data: base64Of(new Uint8Array(64).fill(7)), size: 256 };
    for (const resource of [new PinnedMemoryResource(), {}, null, 5, { isIpcEnabled: 'yes' }]) {
      const error = outcome(() => Buffer.fromIpcDescriptor(resource as never, descriptor));
      expect(error).toBeInstanceOf(IpcError);
      expect((error as Error).message).toMatch(
        /is not IPC-enabled; make it with new DeviceMemoryResource\(device, \{ ipcEnabled: true \}\)/,
      );
    }
    // the exporting process's own pool: its buffers are there already
    class ExporterLike extends DeviceMemoryResource {
      override get isIpcEnabled(): boolean {
        return true;
      }
    }
    const exporter = new ExporterLike(unreachableDevice);
    expect(() => Buffer.fromIpcDescriptor(exporter, descriptor)).toThrow(
      /the resource's pool was made in this process/,
    );
  });

  // Issue 20: a look-alike resource reached cuMemPoolImportPointer with its made-up pool, which ended the process.
  it('recognises a resource by its brand, never by its shape', () => {
    const descriptor = { data: base64Of(new Uint8Array(64).fill(7)), size: 256 };
    const lookAlikes = [
      { isIpcEnabled: true, isImported: true, pool: 0x1000n, device: unreachableDevice },
      Object.create(DeviceMemoryResource.prototype, {
        isIpcEnabled: { value: true },
        isImported: { value: true },
        pool: { value: 0x1000n },
      }),
    ];
    for (const resource of lookAlikes) {
      const error = outcome(() => Buffer.fromIpcDescriptor(resource as never, descriptor));
      expect(error).toBeInstanceOf(IpcError);
      expect((error as Error).message).toMatch(/is not IPC-enabled/);
    }
  });
});

describe('hostile input: IPC allocation handles', () => {
  // pids above 2^22 exist on no Linux system, so a well-formed handle never takes another process's descriptor
  const pids = fc.oneof(
    fc.integer({ min: 2 ** 22 + 1, max: 2 ** 31 - 1 }),
    fc.integer({ min: -8, max: 0 }),
    fc.constantFrom(2 ** 31, 1.5, Number.NaN),
    notANumber,
  );
  const fds = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), hostileNumber, notANumber);
  const uuids = fc.oneof(
    fc.constant(undefined),
    fc.uuid().map((u) => `GPU-${u}`),
    fc.uuid().map((u) => `GPU-${u.toUpperCase()}`),
    fc.uuid(),
    hostileValue,
  );
  const valid = fc.record(
    {
      kind: fc.constant('posix-fd'),
      pid: fc.integer({ min: 2 ** 22 + 1, max: 2 ** 31 - 1 }),
      fd: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      deviceUuid: fc.uuid().map((u) => `GPU-${u}`),
    },
    { requiredKeys: ['kind', 'pid', 'fd'] },
  );
  const handles = variantsOf(valid, {
    kind: fc.constantFrom<unknown>('fabric', 'POSIX-FD', 1, null),
    pid: pids,
    fd: fds,
    deviceUuid: uuids,
  });

  it('a malformed handle is an IpcError before the device, the driver or pidfd; a well-formed one gets to the next step', () => {
    fc.assert(
      fc.property(handles, (handle) => {
        const error = outcome(() => DeviceMemoryResource.fromAllocationHandle(unreachableDevice, handle as never));
        const h = handle as Record<string, unknown>;
        const uuid = h?.['deviceUuid'];
        const wellFormed =
          hasExactly(handle, ['kind', 'pid', 'fd'], ['deviceUuid']) &&
          h['kind'] === 'posix-fd' &&
          Number.isInteger(h['pid']) &&
          (h['pid'] as number) >= 1 &&
          (h['pid'] as number) < 2 ** 31 &&
          Number.isInteger(h['fd']) &&
          (h['fd'] as number) >= 0 &&
          (h['fd'] as number) < 2 ** 31 &&
          (uuid === undefined ||
            (typeof uuid === 'string' && /^GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(uuid)));
        if (!wellFormed) {
          expect(error, String(error)).toBeInstanceOf(IpcError);
          expect((error as Error).message).toMatch(/^DeviceMemoryResource\.fromAllocationHandle: the handle/);
        } else if (uuid !== undefined) {
          expect(error).toBeInstanceOf(Reached); // the device's UUID is compared first
        } else {
          expect(error).toBeInstanceOf(FdDuplicationError); // no such process
          expect((error as FdDuplicationError).code).toMatch(
            process.platform === 'linux' ? /^(ESRCH|EPERM|ENOSYS)$/ : /./,
          );
        }
      }),
      FUZZ,
    );
  });
});

describe('hostile input: IPC event descriptors', () => {
  const descriptors = variantsOf(fc.record({ data: valid64 }), { data: fc.oneof(notCanonical64, hostileValue) });

  it('a malformed descriptor is an IpcError before the driver; only a well-formed one is given to cuIpcOpenEventHandle', () => {
    fc.assert(
      fc.property(descriptors, (descriptor) => {
        const error = outcome(() => Event.fromIpcDescriptor(descriptor as never));
        const wellFormed = hasExactly(descriptor, ['data']) && isCanonical64(descriptor['data']);
        if (!wellFormed) {
          expect(error, String(error)).toBeInstanceOf(IpcError);
          expect((error as Error).message).toMatch(/^Event\.fromIpcDescriptor: the descriptor/);
        } else {
          // made-up handle bytes: the driver's own answer (no device, no library, or an invalid handle), named
          expect(
            [CudaError, LibraryNotFoundError].some((kind) => error instanceof kind),
            String(error),
          ).toBe(true);
        }
      }),
      { ...FUZZ, numRuns: 200 },
    );
  });
});

describe('hostile input: the payload codec and the pidfd boundary', () => {
  it('64 bytes survive base64, JSON and structured cloning unchanged', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (bytes) => {
        const descriptor = { data: encodeIpcPayload(bytes, 'test'), size: 64 };
        for (const copy of [JSON.parse(JSON.stringify(descriptor)), structuredClone(descriptor)]) {
          expect([...decodeIpcPayload(copy.data, 'test')]).toEqual([...bytes]);
        }
      }),
      FUZZ,
    );
    expect(() => encodeIpcPayload(new Uint8Array(63), 'Event.ipcDescriptor')).toThrow(IpcError);
  });

  it('duplicateFdFromProcess: hostile arguments are a TypeError or RangeError, a failed call an FdDuplicationError, never a crash', () => {
    const badNumber = fc.oneof(
      fc.constantFrom(
        Number.NaN,
        Infinity,
        -Infinity,
        0.5,
        2 ** 31,
        2 ** 32,
        2 ** 53,
        -(2 ** 53),
        1e300,
        -(2 ** 31) - 1,
      ),
      fc.double(),
    );
    // this process, and pids that no Linux process has (above 2^22): no other process's descriptor is ever taken
    const pids = fc.oneof(
      fc.constant(process.pid),
      fc.integer({ min: -8, max: 0 }),
      fc.integer({ min: 2 ** 22 + 1, max: 2 ** 31 - 1 }),
      badNumber,
      notANumber,
    );
    const fds = fc.oneof(
      fc.integer({ min: -8, max: 64 }),
      fc.integer({ min: 2 ** 20, max: 2 ** 31 - 1 }),
      badNumber,
      notANumber,
    );
    fc.assert(
      fc.property(pids, fds, (pid, fd) => {
        let copy: number;
        try {
          copy = duplicateFdFromProcess(pid as number, fd as number);
        } catch (error) {
          expect(
            [TypeError, RangeError, FdDuplicationError].some((kind) => error instanceof kind),
            String(error),
          ).toBe(true);
          const inRange = (v: unknown, min: number) =>
            Number.isInteger(v) && (v as number) >= min && (v as number) < 2 ** 31;
          expect(error instanceof FdDuplicationError, String(error)).toBe(inRange(pid, 1) && inRange(fd, 0));
          return;
        }
        // only this process's own open descriptors can come back
        expect(pid).toBe(process.pid);
        expect(Number.isInteger(copy) && copy >= 0).toBe(true);
        closeSync(copy);
      }),
      FUZZ,
    );
  });
});
