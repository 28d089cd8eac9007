import * as generated from './generated/nvml.js';
import type { GeneratedNvmlFunctions } from './generated/nvml.js';
import { namespaceFallback, native } from './native.js';
import { constantsOf, enumsOf, type ConstantsOf, type EnumsOf } from './enums-of.js';

/**
 * NVML's functions (`nvmlInit_v2` first; the unversioned names `nvmlInit`,
 * `nvmlDeviceGetCount`, `nvmlDeviceGetHandleByIndex` and `nvmlDeviceGetPciInfo`
 * are the same functions), its enums, and its integer `#define`s
 * (`NVML_DEVICE_NAME_V2_BUFFER_SIZE`, `NVML_NVLINK_MAX_LINKS`, `nvmlMemory_v2`, ...).
 */
export type Nvml = GeneratedNvmlFunctions & EnumsOf<typeof generated> & ConstantsOf<typeof generated>;

/**
 * NVML, the NVIDIA Management Library (`libnvidia-ml.so.1`, installed with the
 * driver; opened on the first call, where pathfinder's `nvml` entry finds it, or at
 * `CUDA_JS_LIB_NVML`). Failures throw {@link NvmlError}; where NVML is absent, the
 * first call throws `LibraryNotFoundError` listing every place it looked.
 * Device handles (`nvmlDevice_t`) are type-tagged Externals: only the ones
 * that `nvmlDeviceGetHandleByIndex_v2` returned are accepted.
 */
export const nvml: Nvml = Object.freeze(
  Object.assign(
    Object.create(namespaceFallback.nvml) as object,
    native.nvml,
    enumsOf(generated),
    constantsOf(generated),
  ),
) as unknown as Nvml;
