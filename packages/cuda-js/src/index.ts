/**
 * cuda-js: the CUDA stack for TypeScript and Node.js in one import. Each layer
 * is also its own package (`@cuda-js/pathfinder`, `@cuda-js/bindings`, ...).
 *
 * It re-exports the public names of every layer (`@cuda-js/pathfinder`, the
 * libraries and errors of `@cuda-js/bindings`, `@cuda-js/memory-view`,
 * `@cuda-js/streams`, `@cuda-js/program`, `@cuda-js/core`, `@cuda-js/jit`),
 * each documented once, on its own package's page; where two layers export
 * one name, core's `Device` wins and memory-view's is `DLDevice`. What is
 * documented here is what this package adds: the reports of `cuda-js info`.
 *
 * @packageDocumentation
 */
export * from '@cuda-js/pathfinder';
export {
  driver,
  nvrtc,
  nvjitlink,
  nvvm,
  nvml,
  nccl,
  loadedLibraries,
  CudaLibraryError,
  CudaError,
  NvrtcError,
  NvJitLinkError,
  NvvmError,
  NvmlError,
  LibraryLoadError,
  FunctionNotFoundError,
  AddonLoadError,
  AddonNotFoundError,
} from '@cuda-js/bindings';
export * from '@cuda-js/memory-view';
export * from '@cuda-js/streams';
export * from '@cuda-js/program';
export * from '@cuda-js/core';
export * from '@cuda-js/jit';
// Names that two layers both export: the full stack's meaning wins, the other stays reachable under a prefix.
export { Device } from '@cuda-js/core';
export type { Device as DLDevice } from '@cuda-js/memory-view';
export type { KernelParameter, Dim3 } from '@cuda-js/core';
export type { StreamArgument } from '@cuda-js/streams';
export { libraryReport, type LibraryReport, type LibraryReportRow } from './library-report.js';
export {
  systemReport,
  type SystemReport,
  type DeviceSummary,
  type NvmlReport,
  type NvmlDeviceSummary,
} from './system-report.js';
