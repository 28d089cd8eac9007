import { driver, nvrtc } from '@cuda-js/bindings';

/** @internal For tests: compiles CUDA C++ with NVRTC to a cubin for `arch` and loads it as a library. */
export function compileTestKernels(source: string, names: readonly string[], arch: string): { kernels: Record<string, { handle: bigint; name: string }>; unload: () => void } {
  const program = nvrtc.nvrtcCreateProgram(source, 'test.cu', [], []);
  try {
    for (const name of names) nvrtc.nvrtcAddNameExpression(program, name);
    nvrtc.nvrtcCompileProgram(program, [`--gpu-architecture=${arch}`, '-std=c++17']);
    const cubin = nvrtc.nvrtcGetCUBIN(program);
    const library = driver.cuLibraryLoadData(cubin);
    const kernels: Record<string, { handle: bigint; name: string }> = {};
    for (const name of names) {
      const lowered = nvrtc.nvrtcGetLoweredName(program, name);
      kernels[name] = { handle: driver.cuLibraryGetKernel(library, lowered), name };
    }
    return { kernels, unload: () => driver.cuLibraryUnload(library) };
  } finally {
    nvrtc.nvrtcDestroyProgram(program);
  }
}
