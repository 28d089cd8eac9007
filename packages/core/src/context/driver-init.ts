import { CudaError, driver } from '@cuda-js/bindings';
import { installDriverHooks } from './driver-hooks.js';
import { applyFastExit } from './fast-exit.js';
import { DeviceNotFoundError } from '../errors.js';

let initialized = false;

/** cuInit once per process; no device becomes a DeviceNotFoundError that says why. */
export function ensureDriver(): void {
  if (initialized) return;
  try {
    driver.cuInit(0);
  } catch (error) {
    if (error instanceof CudaError && error.codeName === 'CUDA_ERROR_NO_DEVICE') {
      throw new DeviceNotFoundError(`no CUDA device: the driver (cuInit) reports ${error.codeName}`, { cause: error });
    }
    throw error;
  }
  installDriverHooks();
  applyFastExit();
  initialized = true;
}

/** The number of CUDA devices: 0 where the driver reports none. Other driver failures throw. */
export function deviceCount(): number {
  try {
    ensureDriver();
  } catch (error) {
    if (error instanceof DeviceNotFoundError) return 0;
    throw error;
  }
  return driver.cuDeviceGetCount();
}

/** The CUDA version the driver supports, as `{ major, minor }` (13000 → 13.0). */
export function driverVersion(): { major: number; minor: number } {
  const v = driver.cuDriverGetVersion();
  return { major: Math.floor(v / 1000), minor: (v % 1000) / 10 };
}
