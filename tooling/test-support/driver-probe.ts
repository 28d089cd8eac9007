/** What the CUDA driver is on this machine, for unit tests that run with and without it. */
export type DriverState = 'absent' | 'no device' | 'device';

/**
 * Probes `driver` (the bindings' `driver`, passed in so that this package
 * loads no native code): `absent` where `cuInit` throws the missing-library
 * error (`isLibraryMissing`), `no device` where it throws anything else, else
 * `device`.
 */
export function probeDriver(driver: { cuInit(flags: number): unknown }, isLibraryMissing: (error: unknown) => boolean): DriverState {
  try {
    driver.cuInit(0);
    return 'device';
  } catch (error) {
    return isLibraryMissing(error) ? 'absent' : 'no device';
  }
}
