/**
 * @cuda-js/bindings: the CUDA driver API, NVRTC, nvJitLink, libNVVM, NVML and
 * NCCL from JS, one call per C function under its C name. Each library is opened on the
 * first call into it, at the path that @cuda-js/pathfinder finds. What the
 * layers above are built on (OwnedHandle, the background releases, the packed
 * launch's layout) is the subpath `@cuda-js/bindings/runtime`.
 *
 * @packageDocumentation
 */
export {
  driver,
  type Driver,
  type DriverEnums,
  type DriverConstants,
  type HandwrittenDriverFunctions,
  type KernelParams,
  type PackedLaunch,
  type LaunchFunction,
  type LaunchConfig,
  type P2PTokens,
} from './driver.js';
export { nvrtc, type Nvrtc, type HandwrittenNvrtcFunctions } from './nvrtc.js';
export { nvjitlink, type NvJitLink, type HandwrittenNvJitLinkFunctions } from './nvjitlink.js';
export { nvvm, type Nvvm, type HandwrittenNvvmFunctions } from './nvvm.js';
export { nvml, type Nvml } from './nvml.js';
export { nccl, type Nccl } from './nccl.js';
export {
  CudaLibraryError,
  CudaError,
  NvrtcError,
  NvJitLinkError,
  NvvmError,
  NvmlError,
  NcclError,
  LibraryLoadError,
  FunctionNotFoundError,
  LibraryNotFoundError,
  HostViewError,
  FdDuplicationError,
} from './errors.js';
export { AddonLoadError, AddonNotFoundError } from './addon-errors.js';
export { loadedLibraries, perThreadDefaultStream } from './loaded-libraries-report.js';
export { hostArrayBuffer } from './host-array-buffer.js';
export { ClosedResourceError } from './owned-handle.js';
export { launchBlockingHostFunc } from './blocking-host-function.js';
export { duplicateFdFromProcess } from './process-fd.js';
export type { LoadedLibrary } from './loaded-libraries.js';
export type { Handle, ExternalHandle, NullHandle, HostMemory, RawPointer, EnumObject } from './types.js';
export type * from './generated/handles.js';
export type { GeneratedDriverFunctions } from './generated/driver.js';
export type { GeneratedNvrtcFunctions } from './generated/nvrtc.js';
export type { GeneratedNvjitlinkFunctions } from './generated/nvjitlink.js';
export type { GeneratedNvvmFunctions } from './generated/nvvm.js';
export type { GeneratedNvmlFunctions } from './generated/nvml.js';
export type { GeneratedNcclFunctions } from './generated/nccl.js';
export type * as DriverTypes from './generated/driver.js';
export type * as NvrtcTypes from './generated/nvrtc.js';
export type * as NvJitLinkTypes from './generated/nvjitlink.js';
export type * as NvvmTypes from './generated/nvvm.js';
export type * as NvmlTypes from './generated/nvml.js';
export type * as NcclTypes from './generated/nccl.js';
export type { EnumsOf, ConstantsOf } from './enums-of.js';
