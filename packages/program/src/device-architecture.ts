import { parseArchitecture, type Architecture } from './architecture.js';
import { NotFoundError } from '@cuda-js/pathfinder';
import { cuda } from './cuda-bindings.js';
import { ArchitectureRequiredError } from './errors.js';

/**
 * The device that work goes to when none is named: the current context's
 * device, else device 0. Returns the `CUdevice`.
 *
 * @throws whatever the driver throws (no driver, no device)
 */
export function currentDevice(): number {
  const driver = cuda.driver;
  driver.cuInit(0);
  if (driver.cuCtxGetCurrent() !== 0n) return driver.cuCtxGetDevice();
  return driver.cuDeviceGet(0);
}

/** The architecture of a `CUdevice` (sm_90 for an H100 or H200). */
export function deviceArchitecture(device: number): Architecture {
  const driver = cuda.driver;
  const major = driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    device,
  );
  const minor = driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    device,
  );
  return { major, minor, suffix: '' };
}

/**
 * The `arch` option as an Architecture, or, when it is not given, the
 * current device's.
 *
 * @throws {ArchitectureRequiredError} when no arch is given and there is no device
 */
export function resolveArchitecture(arch: string | number | undefined): Architecture {
  if (arch !== undefined) return parseArchitecture(arch);
  try {
    return deviceArchitecture(currentDevice());
  } catch (error) {
    // the first line says what is missing (a whole sentence); a library error's places tried stay in the cause
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/\.$/, '');
    throw new ArchitectureRequiredError(
      error instanceof NotFoundError ? `${first}: error.cause lists the places tried` : first,
      { cause: error },
    );
  }
}
