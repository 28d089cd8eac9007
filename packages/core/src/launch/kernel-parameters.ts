import { CudaError, driver, LibraryNotFoundError, type CUfunction, type CUkernel } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { KernelParametersError } from '../errors.js';
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

/** The most bytes of parameters a kernel takes (CUDA 12.1 and newer). */
export const MAX_KERNEL_PARAMETER_BYTES = 32764;

/**
 * The parameter table a launch will use: `given` (a kernel's own
 * `parameters`) checked to describe a kernel at all (sorted by offset,
 * apart, positive sizes, at most {@link MAX_KERNEL_PARAMETER_BYTES}), and,
 * where the driver can say (CUDA 12.4+), to be the driver's table of the
 * function; else the driver's table. Throws {@link KernelParametersError}:
 * a table that says 4 bytes for a pointer would launch with half of it.
 */
export function checkedKernelParameters(
  name: string,
  handle: bigint,
  kind: 'kernel' | 'function',
  given: unknown,
): readonly KernelParameter[] {
  if (given === undefined) return readKernelParameters(handle, kind);
  const fail = (why: string) => new KernelParametersError(`${name}: the kernel's parameters table ${why}`);
  if (!Array.isArray(given)) throw fail('must be an array of { offset, size }');
  if (given.length > MAX_KERNEL_PARAMETER_BYTES)
    throw fail(`has ${given.length} entries; a kernel takes at most ${MAX_KERNEL_PARAMETER_BYTES} bytes of parameters`);
  const table: KernelParameter[] = [];
  let end = 0;
  for (let i = 0; i < given.length; i++) {
    const entry: unknown = given[i];
    const offset = typeof entry === 'object' && entry !== null ? (entry as { offset?: unknown }).offset : undefined;
    const size = typeof entry === 'object' && entry !== null ? (entry as { size?: unknown }).size : undefined;
    if (
      typeof offset !== 'number' ||
      typeof size !== 'number' ||
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(size) ||
      size <= 0
    ) {
      throw fail(`entry ${i} must be { offset, size } of integers with size > 0`);
    }
    if (offset < end)
      throw fail(`entry ${i} (offset ${offset}) overlaps or precedes the parameter before it (which ends at ${end})`);
    end = offset + size;
    if (end > MAX_KERNEL_PARAMETER_BYTES)
      throw fail(`reaches byte ${end}; a kernel takes at most ${MAX_KERNEL_PARAMETER_BYTES} bytes of parameters`);
    table.push({ index: i, offset, size });
  }
  const known = driverTable(handle, kind);
  if (known !== undefined) {
    const same =
      known.length === table.length &&
      known.every((p, i) => p.offset === table[i]!.offset && p.size === table[i]!.size);
    if (!same) {
      const text = (t: readonly KernelParameter[]) => `[${t.map((p) => `${p.offset}:${p.size}`).join(', ')}]`;
      throw fail(`${text(table)} (offset:size) is not the driver's ${text(known)} for this function`);
    }
  }
  return table;
}

/**
 * The driver's table, or undefined where the driver cannot say (no driver, no
 * current context, a driver before CUDA 12.4). Asked only with a context
 * current, as a launch of the handle would be: a process that never used a
 * device never hands a made-up handle to the driver.
 */
function driverTable(handle: bigint, kind: 'kernel' | 'function'): readonly KernelParameter[] | undefined {
  try {
    if (driver.cuCtxGetCurrent() === 0n) return undefined;
    return readKernelParameters(handle, kind);
  } catch (error) {
    if (error instanceof LibraryNotFoundError || error instanceof CudaError) return undefined;
    throw error;
  }
}
