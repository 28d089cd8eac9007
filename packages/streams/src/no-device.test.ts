import { CudaError, driver } from '@cuda-js/bindings';
import { describe, expect, it } from 'vitest';
import { Event, Stream } from './index.js';

// With the driver library but no GPU (CI, this machine): every entry point
// fails with the driver's own error, named, never a crash.
let hasDevice = true;
try {
  driver.cuInit(0);
} catch {
  hasDevice = false;
}

describe.skipIf(hasDevice)('streams without a device', () => {
  it('Stream.create and Event.create throw a CudaError naming the failure', () => {
    expect(() => Stream.create()).toThrow(CudaError);
    expect(() => Event.create({ timing: true })).toThrow(CudaError);
    try {
      Stream.create();
    } catch (e) {
      expect((e as CudaError).functionName).toMatch(/^cuStreamCreate/);
      expect((e as CudaError).codeName).toMatch(/^CUDA_ERROR_/);
    }
  });

  it('checks options before touching the driver', () => {
    expect(() => Stream.create({ nonblocking: true } as never)).toThrow("Stream.create: unknown option 'nonblocking'");
    expect(() => Stream.create({ priority: 0.5 })).toThrow(TypeError);
    expect(() => Event.create({ timing: true, interprocess: true })).toThrow(RangeError);
    expect(() => Event.create({ timed: true } as never)).toThrow(TypeError);
  });
});
