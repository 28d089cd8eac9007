import {
  checkOptions,
  isAnything,
  isArray,
  isBoolean,
  isNonEmptyString,
  isOneOf,
  isString,
  type OptionTable,
  type OptionTableOf,
  type ValueCheck,
} from '@cuda-js/options';
import type { BuildKernelArtifactOptions } from './aot/build-kernel-artifact.js';
import type { BuildModuleKernelsOptions } from './aot/build-module-kernels.js';
import type { DeviceFunctionOptions } from './device-function.js';
import { JitOptionError } from './errors.js';
import type { CooperativeGridOptions, JitKernel, JitLaunchOptions, JitOptions } from './jit.js';
import type { DeviceArrayMakerOptions } from './library/device-arrays.js';
import type { UfuncCallOptions } from './library/ufunc-operands.js';

// Each table is written `satisfies OptionTableOf<TheOptions>`: the interface
// is the one declaration of the options, and a key without a row (or a row
// without a key) fails to compile.

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a JitOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all), each
 * key read once. Use what it returns: the values it checked.
 */
export function checkJitOptions<T extends object>(
  where: string,
  options: unknown,
  table: OptionTable,
): Readonly<Partial<T>> {
  // numba's spellings of the same options, for the suggestion
  return checkOptions<T>(options, table, {
    where,
    fail: (problem) => new JitOptionError(problem),
    aliases: NUMBA_NAMES,
    plainOnly: true,
    snapshot: true,
  });
}

const NUMBA_NAMES: Readonly<Record<string, string>> = { fastmath: 'fastMath', lineinfo: 'debug', opt: 'optimize' };

export const isObject: ValueCheck = (v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'an object of names and values';

export const isJitTarget: ValueCheck = isOneOf(['gpu', 'simulator']);

/** `jit(fn, options)`: every key of JitOptions. */
export const JIT_OPTIONS = {
  target: isJitTarget,
  // the constants are snapshotted (and checked) by the kernel's constants reader
  constants: isAnything,
  name: isString,
  arch: isNonEmptyString,
  fma: isBoolean,
  fastMath: isBoolean,
  cache: isBoolean,
  simulatorBudget: (v) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 1
      ? undefined
      : 'a positive whole number of loop iterations',
  // each signature is checked by resolveSignature, with its own messages
  signatures: isArray,
} satisfies OptionTableOf<JitOptions>;

/** `jit.device(fn, options)`. */
export const DEVICE_FUNCTION_OPTIONS = {
  constants: isAnything,
  name: isString,
  returns: isAnything,
} satisfies OptionTableOf<DeviceFunctionOptions>;

// The values that core and the launch stage check with their own messages (dims, streams, batches, devices) are taken as they are here.

/** `kernel.launch(options, ...args)`: core's LaunchConfig keys, and the JIT's `stream` and `batch`. */
export const LAUNCH_OPTIONS = {
  grid: isAnything,
  block: isAnything,
  cluster: isAnything,
  sharedMemory: isAnything,
  cooperative: isAnything,
  stream: isAnything,
  batch: isAnything,
} satisfies OptionTableOf<JitLaunchOptions>;

/** `kernel.forall(n, options)`. */
export const FORALL_OPTIONS = { stream: isAnything } satisfies OptionTableOf<
  NonNullable<Parameters<JitKernel['forall']>[1]>
>;

/** `kernel.maxCooperativeGridBlocks(block, options)`. */
export const COOPERATIVE_GRID_OPTIONS = {
  signature: isArray,
  sharedMemory: isAnything,
} satisfies OptionTableOf<CooperativeGridOptions>;

/** `kernel.inspect(signature, options)`. */
export const INSPECT_OPTIONS = { arch: isNonEmptyString } satisfies OptionTableOf<
  NonNullable<Parameters<JitKernel['inspect']>[1]>
>;

/** `kernel.artifactCode(signature, options)`. */
export const ARTIFACT_CODE_OPTIONS = { arch: isNonEmptyString } satisfies OptionTableOf<
  NonNullable<Parameters<JitKernel['artifactCode']>[1]>
>;

/** `toDevice`, `deviceArray`, `deviceArrayLike`, `pinnedArray`, `mappedArray`, `managedArray`. */
export const DEVICE_ARRAY_MAKER_OPTIONS = {
  stream: isAnything,
  device: isAnything,
  target: isJitTarget,
} satisfies OptionTableOf<DeviceArrayMakerOptions>;

/** The last argument of a ufunc or gufunc call: `{ out, stream }`. */
export const UFUNC_CALL_OPTIONS = { out: isAnything, stream: isAnything } satisfies OptionTableOf<UfuncCallOptions>;

/** `buildKernelArtifact(kernels, options)` (each architecture list is checked by the build, with its own messages). */
export const BUILD_KERNEL_ARTIFACT_OPTIONS = {
  arch: isAnything,
  ptx: isAnything,
  ptxas: isNonEmptyString,
  signatures: isObject,
} satisfies OptionTableOf<BuildKernelArtifactOptions>;

/** `buildModuleKernels(entry, options)`. */
export const BUILD_MODULE_KERNELS_OPTIONS = {
  ...BUILD_KERNEL_ARTIFACT_OPTIONS,
  out: isNonEmptyString,
} satisfies OptionTableOf<BuildModuleKernelsOptions>;
