export { Program, SUPPORTED_TARGETS, type CompileOptions } from './program.js';
export {
  PROGRAM_OPTION_SPECS,
  CODE_TYPES,
  resolveProgramOptions,
  type ProgramOptions,
  type CodeType,
  type CompileTarget,
  type CxxStandard,
} from './program-options.js';
export { nvrtcFlags } from './nvrtc-flags.js';
export { nvvmFlags } from './nvvm-flags.js';
export { Linker, type LinkCallOptions } from './linker.js';
export {
  LINKER_OPTION_SPECS,
  resolveLinkerOptions,
  nvJitLinkFlags,
  driverJitOptions,
  jitTarget,
  type LinkerOptions,
  type LinkerBackend,
  type LinkTarget,
  type DriverJitOption,
} from './linker-options.js';
export { ObjectCode, type ObjectCodeSource, type ObjectCodeInit } from './object-code.js';
// Files as untrusted input (a FIFO, /dev/zero, a folder), read the one safe way by program and the JIT's kernel artifacts.
export { OBJECT_CODE_TYPES, LOADABLE_CODE_TYPES, type ObjectCodeType } from './object-code-type.js';
export { Kernel, type KernelParameter } from './kernel.js';
export { KernelOccupancy, type ClusterLaunchConfig } from './kernel-occupancy.js';
export { readDim3, type Dim3, type Dim3Fault } from './dim3.js';
export {
  KERNEL_ATTRIBUTES,
  SETTABLE_KERNEL_ATTRIBUTES,
  type KernelAttributeName,
  type KernelAttributes,
} from './kernel-attributes.js';
export { CompileCache, type CompileCacheOptions, type CompileCacheStats } from './compile-cache.js';
export type { CacheEntry } from './cache-entry.js';
export { cacheKey, type KeyPart } from './cache-key.js';
export type { OptionSpec } from './option-validation.js';
export { parseDiagnostics, type Diagnostic, type LogSink } from './compile-log.js';
export {
  checkCompatibility,
  ptxIsaVersion,
  minimumCudaForPtxIsa,
  cudaVersionFromInteger,
  formatCudaVersion,
  type CompatibilityReport,
  type CudaVersion,
  type PtxIsaVersion,
  type Producer,
} from './compatibility.js';
export { parseArchitecture, smName, computeName, computeCapability, type Architecture } from './architecture.js';
export { nvvmToolchain, nvvmIRVersion, type Toolchain, type NvvmIRVersion } from './toolchain.js';
export { toolchainIdentity, type ToolchainIdentity, type ToolchainIdentityOptions } from './toolchain-identity.js';
export { verifyNvvm, type VerifyNvvmOptions } from './nvvm-verify.js';
export {
  OptionError,
  UnknownOptionError,
  InvalidOptionError,
  UnsupportedOptionError,
  UnsupportedTargetError,
  UnsupportedArchitectureError,
  ArchitectureRequiredError,
  InvalidCodeError,
  InvalidArgumentError,
  LinkerUnavailableError,
  LinkError,
  UnsupportedInputError,
  CacheStorageError,
  NotLoadableError,
  ObjectCodeLoadError,
  KernelNotFoundError,
  ClosedError,
  NoCurrentContextError,
  ProgramError,
  ClosedResourceError,
} from './errors.js';
