import { describe, expect, it } from 'vitest';
import { cudaLibraryBuild, loadCudaLibrary } from '../test/cuda-library.js';

// The GPU tests (*.gpu.test.ts) use a third-party CUDA library built from
// test/addons/cuda_library.cc. It is built here, with the unit tests, so that a
// GPU host without a compiler or Node.js headers receives it ready (build-test/).
describe('the CUDA library fixture of the GPU tests', () => {
  it.skipIf(cudaLibraryBuild.path === undefined)(
    cudaLibraryBuild.path === undefined
      ? `builds and loads (skipped: ${cudaLibraryBuild.reason})`
      : 'builds and loads, and asks the real driver for a device',
    () => {
      const lib = loadCudaLibrary();
      let device: number | undefined;
      let failure: { message: string; result?: number } | undefined;
      try {
        device = lib.init();
      } catch (error) {
        failure = error as { message: string; result?: number };
      }
      if (failure === undefined) {
        expect(device).toBe(0); // a machine with a GPU: ordinal 0 is current
      } else {
        // No GPU here: the driver library answers (CUDA_ERROR_NO_DEVICE = 100), or is absent.
        expect(failure.message).toMatch(/cuInit failed: CUDA_ERROR_NO_DEVICE \(100\)|dlopen\(libcuda\.so\.1\) failed/);
      }
    },
  );
});
