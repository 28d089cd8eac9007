import { driver, nvrtc, type CUcontext } from '../index.js';

/** The first device's primary context, made current (GPU tests only). */
export function primaryContext(): { dev: number; ctx: CUcontext; sm: number } {
  driver.cuInit(0);
  const dev = driver.cuDeviceGet(0);
  const ctx = driver.cuDevicePrimaryCtxRetain(dev);
  driver.cuCtxSetCurrent(ctx);
  const major = driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    dev,
  );
  const minor = driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    dev,
  );
  return { dev, ctx, sm: major * 10 + minor };
}

/** NVRTC-compiles `source` with `options` and returns what `get` reads (PTX, cubin, LTO-IR). */
export function compile<T>(
  source: string,
  options: string[],
  get: (prog: ReturnType<typeof nvrtc.nvrtcCreateProgram>) => T,
): T {
  const prog = nvrtc.nvrtcCreateProgram(source, 'test.cu', [], []);
  try {
    nvrtc.nvrtcCompileProgram(prog, options);
    return get(prog);
  } finally {
    nvrtc.nvrtcDestroyProgram(prog);
  }
}
