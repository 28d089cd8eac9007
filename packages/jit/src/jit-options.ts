import { checkOptions, isAnything, isArray, isBoolean, isNonEmptyString, isOneOf, isString, type OptionTable, type ValueCheck } from '@cuda-js/options';
import { JitOptionError } from './errors.js';

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a JitOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all), each
 * key read once. Use what it returns: the values it checked.
 */
export function checkJitOptions<T extends object>(where: string, options: unknown, table: OptionTable): Readonly<Partial<T>> {
  // numba's spellings of the same options, for the suggestion
  return checkOptions<T>(options, table, { where, fail: (problem) => new JitOptionError(problem), aliases: NUMBA_NAMES, plainOnly: true, snapshot: true });
}

const NUMBA_NAMES: Readonly<Record<string, string>> = { fastmath: 'fastMath', lineinfo: 'debug', opt: 'optimize' };

export const isObject: ValueCheck = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'an object of names and values');

export const isJitTarget: ValueCheck = isOneOf(['gpu', 'simulator']);

/** `jit(fn, options)`: every key of JitOptions. */
export const JIT_OPTIONS: OptionTable = {
  target: isJitTarget,
  // the constants are snapshotted (and checked) by the kernel's constants reader
  constants: isAnything,
  name: isString,
  arch: isNonEmptyString,
  fma: isBoolean,
  fastMath: isBoolean,
  cache: isBoolean,
  simulatorBudget: (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? undefined : 'a positive whole number of loop iterations'),
  // each signature is checked by resolveSignature, with its own messages
  signatures: isArray,
};

/** `jit.device(fn, options)`. */
export const DEVICE_FUNCTION_OPTIONS: OptionTable = { constants: isAnything, name: isString, returns: isAnything };

// The values that core and the launch stage check with their own messages (dims, streams, batches, devices) are taken as they are here.

/** `kernel.launch(options, ...args)`: core's LaunchConfig keys, and the JIT's `stream` and `batch`. */
export const LAUNCH_OPTIONS: OptionTable = { grid: isAnything, block: isAnything, cluster: isAnything, sharedMemory: isAnything, cooperative: isAnything, stream: isAnything, batch: isAnything };

/** `kernel.forall(n, options)`. */
export const FORALL_OPTIONS: OptionTable = { stream: isAnything };

/** `kernel.maxCooperativeGridBlocks(block, options)`. */
export const COOPERATIVE_GRID_OPTIONS: OptionTable = { signature: isArray, sharedMemory: isAnything };

/** `kernel.inspect(signature, options)`. */
export const INSPECT_OPTIONS: OptionTable = { arch: isNonEmptyString };

/** `kernel.artifactCode(signature, options)`. */
export const ARTIFACT_CODE_OPTIONS: OptionTable = { arch: isNonEmptyString };

/** `toDevice`, `deviceArray`, `deviceArrayLike`, `pinnedArray`, `mappedArray`, `managedArray`. */
export const DEVICE_ARRAY_MAKER_OPTIONS: OptionTable = { stream: isAnything, device: isAnything, target: isJitTarget };

/** The last argument of a ufunc or gufunc call: `{ out, stream }`. */
export const UFUNC_CALL_OPTIONS: OptionTable = { out: isAnything, stream: isAnything };

/** `buildKernelArtifact(kernels, options)` (each architecture list is checked by the build, with its own messages). */
export const BUILD_KERNEL_ARTIFACT_OPTIONS: OptionTable = { arch: isAnything, ptx: isAnything, ptxas: isNonEmptyString, signatures: isObject };

/** `buildModuleKernels(entry, options)`. */
export const BUILD_MODULE_KERNELS_OPTIONS: OptionTable = { ...BUILD_KERNEL_ARTIFACT_OPTIONS, out: isNonEmptyString };
