import { NvmlError } from '@cuda-js/bindings';
import { fakeNvml } from '@cuda-js/test-support/fake-nvml';
import { describe, expect, it } from 'vitest';
import { system, SystemUnavailableError } from '../index.js';

// NVML is there but refuses to start (a machine whose kernel driver is not
// loaded): the stand-in libnvidia-ml.so.1 fails nvmlInit_v2 with
// NVML_ERROR_DRIVER_NOT_LOADED. The override is set before the first NVML call
// (each test file has its own process).
const fake = fakeNvml();
if ('path' in fake) process.env['CUDA_JS_LIB_NVML'] = fake.path;
process.env['FAKE_NVML_INIT_RESULT'] = '9';
const skipReason = 'reason' in fake ? fake.reason : undefined;
if (skipReason) console.log(`system-init-failure.test.ts: skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('system where nvmlInit_v2 fails', () => {
  it("is not available, with NVML's own error as the reason", () => {
    expect(system.available).toBe(false);
    expect(system.unavailableReason).toBe(
      'NvmlError: nvmlInit_v2 failed with NVML_ERROR_DRIVER_NOT_LOADED (9): Driver Not Loaded',
    );
    expect(system.unavailableError).toBeInstanceOf(NvmlError);
    expect(() => system.driverVersion).toThrow(SystemUnavailableError);
    expect(() => system.devices()).toThrow(
      /system information needs NVML, which is unavailable: NvmlError: nvmlInit_v2 failed with NVML_ERROR_DRIVER_NOT_LOADED/,
    );
  });
});
