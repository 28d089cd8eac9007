import { brandHandle, CudaError, driver, type CUfunction, type CUkernel } from '@cuda-js/bindings';
import { Kernel, type KernelParameter } from '@cuda-js/program';

export type { KernelParameter };

/**
 * What `launch` needs of a kernel: program's `Kernel` fits, and so does any
 * object with a CUkernel or CUfunction handle.
 */
export interface LaunchableKernel {
  /** A CUkernel (context-independent, from cuLibraryGetKernel) or a CUfunction. */
  readonly handle: bigint;
  /** `'function'` when `handle` is a CUfunction; default `'kernel'`. */
  readonly handleKind?: 'kernel' | 'function';
  /** The kernel's name, for error messages. */
  readonly name?: string;
  /** Parameter offsets and sizes; read from the driver when absent. */
  readonly parameters?: readonly KernelParameter[];
  /**
   * Throws when the kernel can no longer be launched (program's Kernel:
   * its ObjectCode was closed, so the handle names unloaded code). Called on
   * every launch, before the handle is used.
   */
  checkOpen?(): void;
}

/** A kernel argument to launch: a LaunchableKernel, or a bare CUkernel handle. */
export type KernelArgument = LaunchableKernel | bigint;

/**
 * Asks the driver for the parameter layout (CUDA 12.4+): program's Kernel reads
 * a CUkernel's (cuKernelGetParamInfo); a CUfunction's is read here
 * (cuFuncGetParamInfo).
 */
export function readKernelParameters(handle: bigint, kind: 'kernel' | 'function'): readonly KernelParameter[] {
  if (kind === 'kernel') return Kernel.fromHandle(brandHandle<CUkernel>(handle)).parameters;
  const fn = brandHandle<CUfunction>(handle);
  const parameters: KernelParameter[] = [];
  for (let index = 0; ; index++) {
    try {
      const info = driver.cuFuncGetParamInfo(fn, index);
      parameters.push({ index, offset: Number(info.paramOffset), size: Number(info.paramSize) });
    } catch (error) {
      // past the last parameter the driver answers CUDA_ERROR_INVALID_VALUE
      if (error instanceof CudaError && error.codeName === 'CUDA_ERROR_INVALID_VALUE') return parameters;
      throw error;
    }
  }
}
