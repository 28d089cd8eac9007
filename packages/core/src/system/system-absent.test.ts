import { errorOf } from '@cuda-js/test-support/errors';
import { LibraryNotFoundError } from '@cuda-js/bindings';
import { describe, expect, it } from 'vitest';
import { system, SystemDevice, SystemUnavailableError } from '../index.js';

// Where libnvidia-ml cannot be found, `system` says so and why, and nothing
// crashes. Each test file runs in a process of its own: this one points
// pathfinder's override at a file that does not exist (so it holds on GPU hosts
// too) before the first NVML call.
const MISSING = '/nonexistent/cuda-js-test/libnvidia-ml.so.1';
process.env['CUDA_JS_LIB_NVML'] = MISSING;

describe('system without NVML', () => {
  it('is not available, and says what was looked for and where', () => {
    expect(system.available).toBe(false);
    expect(system.unavailableReason).toMatch(
      /^LibraryNotFoundError: CUDA library 'nvml' was not found\. Places tried, in order: 1\. \[override\] CUDA_JS_LIB_NVML=\/nonexistent\/cuda-js-test\/libnvidia-ml\.so\.1: /,
    );
    expect(system.unavailableReason).toContain('libnvidia-ml.so.1');
    expect(system.unavailableReason).not.toContain('\n');
    expect(system.unavailableError).toBeInstanceOf(LibraryNotFoundError);
    // asked again: the same answer, without another search
    expect(system.available).toBe(false);
  });

  it('everything else throws SystemUnavailableError with the reason and the error underneath', () => {
    const reads = [
      () => system.driverVersion,
      () => system.nvmlVersion,
      () => system.cudaDriverVersion,
      () => system.deviceCount,
      () => system.devices(),
      () => system.device(0),
      () => SystemDevice.count(),
    ];
    for (const read of reads) {
      const error = errorOf<unknown>(() => {
        read();
      });
      expect(error).toBeInstanceOf(SystemUnavailableError);
      const e = error as SystemUnavailableError;
      expect(e.name).toBe('SystemUnavailableError');
      expect(e.reason).toBe(system.unavailableReason);
      expect(e.message).toBe(`system information needs NVML, which is unavailable: ${system.unavailableReason}`);
      expect(e.cause).toBeInstanceOf(LibraryNotFoundError);
    }
    // argument checks still come first
    expect(() => system.device(-1)).toThrow(RangeError);
  });
});
