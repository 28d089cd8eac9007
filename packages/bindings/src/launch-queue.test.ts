// createLaunchFunction and cuLaunchKernelQueue: every size and offset that JS
// gives is checked before anything is made, and a queue's records are all
// checked before the first is launched, an error naming the record by
// `launchIndex`. None of this needs a device: a well-formed queue gets as far
// as asking the driver for the current context.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { driver, type CUfunction, type LaunchFunction } from './index.js';
import { LAUNCH_QUEUE_RECORD, PACKED_LAUNCH_HEADER } from './runtime.js';

const F = 0x1234n as CUfunction;
const HEADER = PACKED_LAUNCH_HEADER.bytes;

/** A launch function of an (8-byte, 4-byte) kernel: parameters at 0 and 8, the header at 16. */
const twoParameters = (): LaunchFunction => driver.createLaunchFunction(F, 16 + HEADER, [0, 8], [8, 4], 16)!;

/** Whether `run` fails only for want of a driver or a device, past every check of the queue. */
function reachesTheDriver(run: () => unknown): void {
  const error = errorOf<unknown>(() => {
    run();
  });
  // no CUDA library here, or one with no device: either way nothing about the queue
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).name).toMatch(/^(LibraryNotFoundError|CudaError|LibraryLoadError)$/);
  expect((error as { launchIndex?: number }).launchIndex).toBeUndefined();
}

describe('createLaunchFunction', () => {
  it('makes a function over bytes it owns, whose buffer holds the parameters and the header', () => {
    const launch = twoParameters();
    expect(launch).toBeTypeOf('function');
    expect(launch.buffer).toBeInstanceOf(ArrayBuffer);
    expect(launch.buffer.byteLength).toBe(16 + HEADER);
    expect(Object.keys(launch)).toEqual(['buffer']);
    expect(driver.createLaunchFunction(F, HEADER, [], [], 0)).toBeTypeOf('function');
  });

  it('refuses what createPackedLaunch refuses: parameters outside the bytes, over the header or each other, a bad header, 0n', () => {
    expect(() => driver.createLaunchFunction(F, 64, [0], [8], 24)).toThrow(
      /'headerOffset' = 24: the 48-byte header does not fit in the buffer \(64 bytes\)/,
    );
    expect(() => driver.createLaunchFunction(F, 64, [0], [4], 4)).toThrow(/'headerOffset' = 4 is not a multiple of 8/);
    expect(() => driver.createLaunchFunction(F, 64, [0, 48], [8, 16], 8)).toThrow(
      /'offsets'\[1\] = 48 with size 16 reaches into the header at 8/,
    );
    expect(() => driver.createLaunchFunction(F, 64, [0, 4], [8, 8], 16)).toThrow(
      /'offsets'\[1\] = 4 overlaps parameter 0/,
    );
    expect(() => driver.createLaunchFunction(F, 64, [64], [1], 0)).toThrow(
      /'offsets'\[0\] = 64 is past the end of the buffer/,
    );
    expect(() => driver.createLaunchFunction(0n as CUfunction, 64, [], [], 0)).toThrow(
      /'f' must be a CUfunction or CUkernel, not 0n/,
    );
    expect(() => driver.createLaunchFunction(F, 0, [], [], 0)).toThrow(/'byteLength' = 0: a launch takes 1 to/);
    expect(() => driver.createLaunchFunction(F, 1 << 20, [], [], 0)).toThrow(RangeError);
    expect(() => driver.createLaunchFunction(F, -1, [], [], 0)).toThrow(RangeError);
  });

  it('keeps its bytes when its buffer is transferred away: a call still reads them (and asks the driver)', () => {
    const launch = twoParameters();
    const moved = (launch.buffer as ArrayBuffer & { transfer?: () => ArrayBuffer }).transfer?.();
    if (moved !== undefined) expect(launch.buffer.byteLength).toBe(0);
    reachesTheDriver(() => launch());
  });
});

/** A queue of records for `launch` (index 0): each record the prefix, then `body` bytes. */
function queueOf(
  records: { which?: number; bytes?: number }[],
  body = 16 + HEADER,
): { queue: ArrayBuffer; used: number } {
  const size = LAUNCH_QUEUE_RECORD.body + body;
  const queue = new ArrayBuffer(records.length * size + 8);
  const view = new DataView(queue);
  records.forEach((r, i) => {
    view.setUint32(i * size + LAUNCH_QUEUE_RECORD.launch, r.which ?? 0, true);
    view.setUint32(i * size + LAUNCH_QUEUE_RECORD.bytes, r.bytes ?? size, true);
  });
  return { queue, used: records.length * size };
}

describe('cuLaunchKernelQueue', () => {
  it('launches nothing and asks nothing for an empty queue', () => {
    expect(driver.cuLaunchKernelQueue(new ArrayBuffer(0), 0, [])).toBe(0);
    expect(driver.cuLaunchKernelQueue(new Uint8Array(8), 0, [twoParameters()])).toBe(0);
  });

  it('takes launch functions and packed launches, and checks every record before it asks the driver anything', () => {
    const packed = driver.createPackedLaunch(F, new ArrayBuffer(16 + HEADER), [0, 8], [8, 4], 16);
    const { queue, used } = queueOf([{}, { which: 1 }, {}]);
    reachesTheDriver(() => driver.cuLaunchKernelQueue(queue, used, [twoParameters(), packed]));
    reachesTheDriver(() => driver.cuLaunchKernelQueue(new DataView(queue), used, [twoParameters(), packed]));
  });

  it('names the first malformed record by its index, and launches nothing', () => {
    const launches = [twoParameters()];
    const expectAt = (records: { which?: number; bytes?: number }[], index: number, message: RegExp) => {
      const { queue, used } = queueOf(records);
      const error = errorOf<unknown>(() => {
        driver.cuLaunchKernelQueue(queue, used, launches);
      });
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(message);
      expect((error as { launchIndex?: number }).launchIndex).toBe(index);
    };
    expectAt([{}, { which: 1 }], 1, /queued launch 1 names packed launch 1 of 1/);
    expectAt(
      [{}, {}, { bytes: 12 }],
      2,
      /queued launch 2 has a size of 12 bytes, not a multiple of 8 holding its 64 bytes/,
    );
    expectAt([{ bytes: 16 }], 0, /queued launch 0 has a size of 16 bytes/);
    expectAt([{ bytes: 8 + 64 + 8 }], 0, /has a size of 80 bytes/); // past the queue's used bytes
    const cut = queueOf([{}]);
    const error = errorOf<unknown>(() => {
      driver.cuLaunchKernelQueue(cut.queue, cut.used + 4, launches);
    });
    expect((error as Error).message).toMatch(/queued launch 1 is cut off: 4 bytes left/);
    expect((error as { launchIndex?: number }).launchIndex).toBe(1);
  });

  it('refuses a byte length past the queue and launches that are not launches', () => {
    expect(() => driver.cuLaunchKernelQueue(new ArrayBuffer(8), 16, [])).toThrow(
      /'byteLength' = 16 is past the end of the queue \(8 bytes\)/,
    );
    expect(() => driver.cuLaunchKernelQueue(new ArrayBuffer(8), 0, [{} as never])).toThrow(
      /'launches'\[0\] must be the result of createLaunchFunction or createPackedLaunch/,
    );
    expect(() => driver.cuLaunchKernelQueue(new ArrayBuffer(8), 0, [(() => undefined) as never])).toThrow(TypeError);
    expect(() =>
      driver.cuLaunchKernelQueue(new ArrayBuffer(8), 0, [
        driver.createKernelParams(new ArrayBuffer(8), [0], [8]) as never,
      ]),
    ).toThrow(TypeError);
    expect(() => driver.cuLaunchKernelQueue('queue' as never, 0, [])).toThrow(/'queue' must be an ArrayBuffer/);
    expect(() => driver.cuLaunchKernelQueue(new ArrayBuffer(8), 0, 'launches' as never)).toThrow(TypeError);
    expect(() => (driver.cuLaunchKernelQueue as (...a: unknown[]) => number)(new ArrayBuffer(8), 0)).toThrow(
      /expected 3 arguments, got 2/,
    );
  });
});

describe('launchCrossingProbe', () => {
  it('does nothing, with or without a packed launch', () => {
    expect(driver.launchCrossingProbe()).toBeUndefined();
    expect(
      driver.launchCrossingProbe(driver.createPackedLaunch(F, new ArrayBuffer(HEADER), [], [], 0)),
    ).toBeUndefined();
  });
});
