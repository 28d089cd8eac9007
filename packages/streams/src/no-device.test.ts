import { errorOf } from '@cuda-js/test-support/errors';
import { CudaError, driver, LibraryNotFoundError } from '@cuda-js/bindings';
import { probeDriver } from '@cuda-js/test-support/driver-probe';
import { describe, expect, it } from 'vitest';
import { Event, launchHostFunction, pendingHostFunctions, Stream, StreamOptionError, StreamsError } from './index.js';

// With the driver library but no GPU (CI, this machine): every entry point
// fails with the driver's own error, named, never a crash.
// On a fresh machine (only Node.js and npm) the driver library itself is
// absent: then the same calls throw LibraryNotFoundError naming it.
const driverState = probeDriver(driver, (error) => error instanceof LibraryNotFoundError);
const hasDevice = driverState === 'device';
const driverAbsent = driverState === 'absent';

describe.skipIf(hasDevice)('streams without a device', () => {
  it.skipIf(!driverAbsent)(
    'Stream.create and Event.create throw LibraryNotFoundError naming libcuda without the driver library',
    () => {
      for (const call of [() => Stream.create(), () => Event.create({ timing: true })]) {
        expect(call).toThrow(LibraryNotFoundError);
        expect(call).toThrow(/CUDA library 'cuda' was not found\.\nPlaces tried, in order:\n[\s\S]*libcuda\.so\.1/);
      }
    },
  );

  it.skipIf(driverAbsent)('Stream.create and Event.create throw a CudaError naming the failure', () => {
    expect(() => Stream.create()).toThrow(CudaError);
    expect(() => Event.create({ timing: true })).toThrow(CudaError);
    try {
      Stream.create();
    } catch (e) {
      expect((e as CudaError).functionName).toMatch(/^cuStreamCreate/);
      expect((e as CudaError).codeName).toMatch(/^CUDA_ERROR_/);
    }
  });

  it("launchHostFunction checks fn first, then throws the driver's error at once (no Promise), counting nothing", () => {
    expect(() => launchHostFunction(0n, undefined as never)).toThrow(/fn must be a function/);
    expect(() => launchHostFunction(0n, () => 1)).toThrow(driverAbsent ? LibraryNotFoundError : CudaError);
    expect(() => Stream.legacyDefault.launchHostFunction(() => 1)).toThrow(
      driverAbsent ? LibraryNotFoundError : CudaError,
    );
    expect(pendingHostFunctions()).toBe(0);
  });

  it('checks options before touching the driver', () => {
    expect(new StreamOptionError({ kind: 'not-an-object', where: 'x', value: 1, message: 'x' })).toBeInstanceOf(
      StreamsError,
    );
    expect(() => Stream.create({ nonblocking: true } as never)).toThrow(
      "Stream.create: unknown option 'nonblocking' (did you mean 'nonBlocking'?); known options: nonBlocking, priority",
    );
    expect(() => Stream.create({ priority: 0.5 })).toThrow(StreamOptionError);
    expect(() => Stream.create({ priority: 0.5 })).toThrow(
      "Stream.create: option 'priority' must be an integer; got 0.5",
    );
    expect(() => Stream.create({ nonBlocking: 'yes' } as never)).toThrow("option 'nonBlocking' must be true or false");
    expect(() => Event.create({ timing: true, interprocess: true })).toThrow(RangeError);
    expect(() => Event.create({ timed: true } as never)).toThrow(StreamOptionError);
    expect(() => Event.create({ timed: true } as never)).toThrow(
      "Event.create: unknown option 'timed'; known options: timing, blockingSync, interprocess",
    );
    expect(() => Event.create({ timng: true } as never)).toThrow(
      "Event.create: unknown option 'timng' (did you mean 'timing'?)",
    );
    expect(() => Event.create({ blockingSync: 1 } as never)).toThrow(
      "Event.create: option 'blockingSync' must be true or false; got 1",
    );
  });
});

describe('Event.fromHandle options', () => {
  it('refuses a misspelt key with the nearest known one, before the handle is wrapped', () => {
    const error = errorOf<StreamOptionError>(() => Event.fromHandle(1n, { timng: true } as never));
    expect(error).toBeInstanceOf(StreamOptionError);
    expect(error.problem).toMatchObject({
      kind: 'unknown',
      where: 'Event.fromHandle',
      key: 'timng',
      suggestion: 'timing',
    });
  });
});
