import { driver, nvrtc } from '@cuda-js/bindings';
import { afterAll, beforeAll } from 'vitest';
import type { Stream } from '@cuda-js/streams';
import { Device } from './device/device.js';
import type { Buffer } from './memory/buffer.js';

/** @internal For tests: compiles CUDA C++ with NVRTC to a cubin for `arch` and loads it as a library. */
export function compileTestKernels(
  source: string,
  names: readonly string[],
  arch: string,
): { kernels: Record<string, { handle: bigint; name: string }>; unload: () => void } {
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

/** @internal A kernel of {@link compileTestKernels}: its CUkernel handle and name. */
export interface TestKernel {
  readonly handle: bigint;
  readonly name: string;
}

/** @internal What {@link gpuTestKernels} gives a suite. */
export interface GpuTestKernels<N extends string> {
  /** Device 0, current (read in a test or a hook, after the fixture's beforeAll). */
  readonly device: Device;
  /** The compiled kernel `name`. */
  kernel(name: N): TestKernel;
}

/**
 * @internal For GPU suites: registers, in the suite that calls it, a
 * beforeAll that makes device 0 current and compiles `names` of `source` for
 * its architecture (once for the suite), and an afterAll that unloads them;
 * the setup that GPU tests repeated. Call it before the suite's own hooks,
 * which then see the device.
 */
export function gpuTestKernels<const N extends string>(source: string, names: readonly N[]): GpuTestKernels<N> {
  let device: Device | undefined;
  let compiled: ReturnType<typeof compileTestKernels> | undefined;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
    compiled = compileTestKernels(source, names, device.arch);
  });
  afterAll(() => compiled?.unload());
  const notYet = (): never => {
    throw new Error('gpuTestKernels: read before the suite ran its beforeAll (read it inside a test or a hook)');
  };
  return {
    get device(): Device {
      return device ?? notYet();
    },
    kernel(name: N): TestKernel {
      return compiled?.kernels[name] ?? notYet();
    },
  };
}

/** @internal For GPU tests: the first `n` int32 values of `buffer`, copied on `stream` (default: the buffer's own) and waited for. */
export function readInts(buffer: Buffer, n: number, stream?: Stream): number[] {
  const out = new Int32Array(buffer.size / 4);
  buffer.copyTo(out, stream ? { stream } : {});
  stream?.synchronize();
  return [...out.subarray(0, n)];
}
