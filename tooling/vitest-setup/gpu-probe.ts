// The `gpu` test project's probe. It lives with the vitest configuration (the
// workspace root, whose dependencies include @cuda-js/bindings), not in
// @cuda-js/test-support: the bindings' own tests use that package, so it may
// load no package of the stack.
import { existsSync, readdirSync } from 'node:fs';
import type { GpuAvailability } from '@cuda-js/test-support';

interface DriverLike {
  cuInit(flags: number): unknown;
  cuDeviceGetCount(): number;
}

function procDevices(): string[] {
  try {
    return readdirSync('/proc/driver/nvidia/gpus');
  } catch {
    return [];
  }
}

/**
 * Asks the driver through @cuda-js/bindings (cuInit, cuDeviceGetCount); where
 * the bindings have no driver API, falls back to the kernel driver's
 * /proc/driver/nvidia/gpus listing.
 */
export async function probeGpu(): Promise<GpuAvailability> {
  if (process.env['CUDA_JS_SKIP_GPU']) return { available: false, reason: 'CUDA_JS_SKIP_GPU is set' };
  let driver: DriverLike | undefined;
  try {
    const bindings = (await import('@cuda-js/bindings')) as { driver?: DriverLike };
    driver = bindings.driver;
  } catch (error) {
    return { available: false, reason: `@cuda-js/bindings did not load: ${(error as Error).message}` };
  }
  if (driver && typeof driver.cuInit === 'function') {
    try {
      driver.cuInit(0);
      const count = driver.cuDeviceGetCount();
      return count > 0
        ? { available: true, reason: `${count} CUDA device(s)` }
        : { available: false, reason: 'the driver reports no CUDA device' };
    } catch (error) {
      return { available: false, reason: `no usable CUDA device: ${(error as Error).message.split('\n')[0]}` };
    }
  }
  const gpus = procDevices();
  if (gpus.length > 0 && existsSync('/dev/nvidiactl'))
    return { available: true, reason: `${gpus.length} NVIDIA GPU(s) in /proc/driver/nvidia/gpus` };
  return { available: false, reason: 'no NVIDIA GPU: /proc/driver/nvidia/gpus is empty or absent' };
}
