import { findLibrary } from '@cuda-js/pathfinder';
import { describe, expect, it } from 'vitest';
import { LibraryNotFoundError, loadedLibraries, nvml, type nvmlDevice_t } from './index.js';
import { errorOf } from '@cuda-js/test-support/errors';

// Where NVML is absent, every call is a LibraryNotFoundError that names the
// library and lists where pathfinder looked; nothing crashes. Each test file
// runs in a process of its own: this one points pathfinder's override at a
// file that does not exist (so it holds on GPU hosts too), before the first call.
const MISSING = '/nonexistent/cuda-js-test/libnvidia-ml.so.1';
process.env['CUDA_JS_LIB_NVML'] = MISSING;

describe('nvml where libnvidia-ml cannot be found', () => {
  it('every function that takes no device throws LibraryNotFoundError naming nvml, the override and where it looked', () => {
    const calls = [
      () => nvml.nvmlInit_v2(),
      () => nvml.nvmlInit(),
      () => nvml.nvmlShutdown(),
      () => nvml.nvmlErrorString(0),
      () => nvml.nvmlSystemGetDriverVersion(),
      () => nvml.nvmlSystemGetNVMLVersion(),
      () => nvml.nvmlSystemGetCudaDriverVersion_v2(),
      () => nvml.nvmlDeviceGetCount_v2(),
      () => nvml.nvmlDeviceGetHandleByIndex_v2(0),
    ];
    for (const call of calls) {
      const e = errorOf(call);
      expect(e).toBeInstanceOf(LibraryNotFoundError);
      expect(e.message).toContain("CUDA library 'nvml' was not found");
      expect(e.message).toContain(`CUDA_JS_LIB_NVML=${MISSING}`);
      expect(e.message).toContain('libnvidia-ml.so.1');
    }
    expect(loadedLibraries().some((l) => l.name === 'nvml')).toBe(false);
  });

  it('device functions check their arguments first: a bad handle is a TypeError, not a library lookup', () => {
    expect(() => nvml.nvmlDeviceGetName(0n as unknown as nvmlDevice_t)).toThrow(TypeError);
    expect(() => nvml.nvmlDeviceGetUUID(null as unknown as nvmlDevice_t)).toThrow(
      /parameter 'device' must be an nvmlDevice_t/,
    );
  });

  // Without the override, on a machine with no NVIDIA driver (this one, CI), the message says what to install.
  let absentHere = false;
  try {
    findLibrary('nvml', { env: {} });
  } catch (e) {
    absentHere = e instanceof LibraryNotFoundError;
  }
  it.skipIf(!absentHere)(
    'on a machine without the driver, pathfinder looked in the system loader for libnvidia-ml.so.1',
    () => {
      const e = errorOf(() => findLibrary('nvml', { env: {} }));
      expect(e.message).toMatch(/ldconfig -p: no entry for libnvidia-ml\.so\.1/);
      expect(e.message).toMatch(/install the NVIDIA driver, or set CUDA_JS_LIB_NVML/);
    },
  );
});
