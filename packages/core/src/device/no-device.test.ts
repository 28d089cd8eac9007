import { CudaError, driver, LibraryNotFoundError } from '@cuda-js/bindings';
import { probeDriver } from '@cuda-js/test-support/driver-probe';
import { describe, expect, it } from 'vitest';
import { Device, DeviceNotFoundError, deviceCount, driverVersion, launch, LaunchConfigError } from '../index.js';

// With the driver library but no GPU (CI, this machine): each entry point
// fails with a named error that says why, and nothing crashes.
// On a fresh machine (only Node.js and npm) the driver library itself is
// absent: then every entry point throws LibraryNotFoundError naming it.
const driverState = probeDriver(driver, (error) => error instanceof LibraryNotFoundError);
const hasDevice = driverState === 'device';
const driverAbsent = driverState === 'absent';

describe.skipIf(hasDevice || driverAbsent)('core without a device', () => {
  it('reports the driver version and zero devices', () => {
    expect(driverVersion().major).toBeGreaterThanOrEqual(11);
    expect(deviceCount()).toBe(0);
    expect(Device.count()).toBe(0);
  });

  it("Device.get throws DeviceNotFoundError naming the driver's answer", () => {
    expect(() => Device.get(0)).toThrow(DeviceNotFoundError);
    expect(() => Device.get(0)).toThrow('no CUDA device: the driver (cuInit) reports CUDA_ERROR_NO_DEVICE');
    expect(() => Device.all()).not.toThrow();
    expect(() => Device.current()).toThrow(DeviceNotFoundError);
    expect(() => Device.get(-1)).toThrow(RangeError);
  });

  it('launch fails clearly before any GPU work', () => {
    expect(() => launch(0n, { grid: 0, block: 1 }, 1n)).toThrow(CudaError);
    expect(() => launch(0n, { grid: 1, block: 1 }, 'kernel' as never)).toThrow(/kernel must be a Kernel/);
    expect(() => launch(3 as never, { grid: 1, block: 1 }, { handle: 1n, parameters: [] })).toThrow(
      /stream must be a Stream/,
    );
    expect(() => launch(0n, { grid: [1, 2, 3, 4] as never, block: 1 }, { handle: 1n, parameters: [] })).toThrow(
      LaunchConfigError,
    );
    expect(() => launch(0n, { grid: 1, block: 1 }, { handle: 1n, parameters: [] })).toThrow(/no CUDA device/);
  });
});

describe.skipIf(!driverAbsent)('core without the driver library', () => {
  it('every entry point throws LibraryNotFoundError naming libcuda and where it looked', () => {
    for (const call of [
      () => driverVersion(),
      () => deviceCount(),
      () => Device.get(0),
      () => Device.all(),
      () => Device.current(),
    ]) {
      expect(call).toThrow(LibraryNotFoundError);
      expect(call).toThrow(/CUDA library 'cuda' was not found\.\nPlaces tried, in order:\n[\s\S]*libcuda\.so\.1/);
    }
    expect(() => Device.get(-1)).toThrow(RangeError);
  });

  it('launch checks its arguments first, then names the missing library', () => {
    expect(() => launch(0n, { grid: 1, block: 1 }, 'kernel' as never)).toThrow(/kernel must be a Kernel/);
    expect(() => launch(3 as never, { grid: 1, block: 1 }, { handle: 1n, parameters: [] })).toThrow(
      /stream must be a Stream/,
    );
    expect(() => launch(0n, { grid: [1, 2, 3, 4] as never, block: 1 }, { handle: 1n, parameters: [] })).toThrow(
      LaunchConfigError,
    );
    expect(() => launch(0n, { grid: 1, block: 1 }, { handle: 1n, parameters: [] })).toThrow(LibraryNotFoundError);
  });
});
