/** What the CUDA driver is on this machine, for unit tests that run with and without it. */
export type DriverState = 'absent' | 'no device' | 'device';

/**
 * Probes `driver` (the bindings' `driver`, passed in so that this package
 * loads no native code): `absent` where `cuInit` throws the missing-library
 * error (`isLibraryMissing`), `no device` where it throws anything else, else
 * `device`.
 */
export function probeDriver(
  driver: { cuInit(flags: number): unknown },
  isLibraryMissing: (error: unknown) => boolean,
): DriverState {
  try {
    driver.cuInit(0);
    return 'device';
  } catch (error) {
    return isLibraryMissing(error) ? 'absent' : 'no device';
  }
}

/**
 * Why a library cannot be used here, or undefined where it can: `open` makes
 * the first call that opens it (`nccl.ncclGetVersion()`); where that throws
 * the missing-library error (`isLibraryMissing`), the first line of its
 * message (the rest lists the places tried). Any other error is thrown: a
 * library that is there but fails is a failure, not a skip.
 */
export function missingLibrary(open: () => unknown, isLibraryMissing: (error: unknown) => boolean): string | undefined {
  try {
    open();
    return undefined;
  } catch (error) {
    if (!isLibraryMissing(error)) throw error;
    return (error as Error).message.split('\n')[0];
  }
}
