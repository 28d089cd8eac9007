/**
 * Kernels written as TypeScript functions (numba-cuda for JavaScript):
 * parsed from their text, typed per signature, compiled to NVVM IR and
 * launched through @cuda-js/core, or run in a CPU simulator.
 *
 * @packageDocumentation
 */
export {
  jit,
  JitKernel,
  type Jit,
  type KernelCacheStats,
  type JitOptions,
  type JitLaunchOptions,
  type JitTarget,
  type CooperativeGridOptions,
  type ArtifactCodeChoice,
} from './jit.js';
export type { KernelInspection } from './compile/kernel-inspection.js';
export type { Specialization, SpecializationOrigin } from './compile/specialization-sources.js';
export {
  KERNEL_RECORD_KEY,
  KERNEL_RECORD_VERSION,
  kernelRecordOf,
  type KernelRecord,
  type KernelRecordKind,
  type KernelImportBinding,
} from './parse/kernel-record.js';
export { jitCache, JIT_CACHE_VARIABLE } from './compile/jit-cache.js';
export { setSimulatorPrintSink, type PrintSink } from './simulate/simulator-runtime.js';
export {
  cuda,
  type CudaIntrinsics,
  type Fp16Functions,
  type Fp16Signatures,
  type Fp16Kind,
  type ConstScalar,
  type Dim3Value,
  type DtypeToken,
  type AtomicTarget,
  type AtomicIndex,
  type AtomicIntrinsics,
  type MmaIntrinsics,
  type PackIntrinsics,
  type MmaRegisters,
  type MmaAccumulators,
  type BitIntrinsics,
  type AtomicSignatures,
  type BitSignatures,
  type TimerIntrinsics,
  type LaneMaskIntrinsics,
  type FenceIntrinsics,
  type WarpVoteIntrinsics,
  type WarpVoteSignatures,
  type WarpMatchIntrinsics,
  type WarpShuffleIntrinsics,
  type WarpShuffleSignature,
  type MathIntrinsics,
  type MathSignatures,
  type KernelArrayMaker,
} from './cuda.js';
export type {
  KernelArray,
  KernelPointer,
  KernelArrayMembers,
  OneDimensional,
  KernelRow,
  KernelScalarView,
  KernelElement,
  ArrayRank,
  Indices,
  NumberScalarName,
  BigIntScalarName,
  ScalarOfToken,
  ScalarOfTypedArray,
  TypedArrayScalars,
} from './kernel-array.js';
export {
  array,
  pointer,
  type KernelSignature,
  type TypeToken,
  type ArrayTypeOf,
  type PointerTypeOf,
} from './typing/signature.js';
export type { ArrayType, JitType, Layout, ScalarName } from './typing/jit-types.js';
export {
  DeviceFunction,
  deviceFunctionOf,
  type DeviceFunctionCallable,
  type DeviceFunctionOptions,
  type KernelConstant,
} from './device-function.js';
export {
  declareDevice,
  ExternalDeviceFunction,
  type DeclaredDeviceFunction,
  type KernelValueOfToken,
  type ArrayTokenValue,
  type TypedArrayScalarsOf,
  type SimulatedArrayOf,
  type SimulatedValueOfToken,
  type TypedExternalSignature,
  type TypedDeclareDeviceOptions,
  type DeclareDeviceOptions,
  type ExternalSignature,
  type LinkInput,
  type CudaLinkInput,
} from './external-device-function.js';
export {
  JitError,
  JitOptionError,
  JitArgumentError,
  UnsupportedSyntaxError,
  RewrittenKernelError,
  FreeVariableError,
  KernelTypeError,
  RecursionTypeError,
  KernelArgumentError,
  SimulatorError,
  ArchitectureTooOldError,
  NoGpuError,
  StaleKernelArtifactError,
  KernelNotBuiltError,
  KernelArtifactFormatError,
  KernelBuildError,
  type SourcePosition,
  type SourceLocator,
} from './errors.js';
// The compiler's typed IR (TypedKernel, Stmt, Expr, ...) is @cuda-js/jit/internals (internals.ts).
// The scalar makers of core are the kernels' casts and the signatures' type tokens.
export { bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64 } from '@cuda-js/core';
// Written in the kernel language itself: numba's cuda.reduce and cuda.random.
export { reduce, type Reducer, type ReduceOptions, type ReducerOptions } from './library/reduce.js';
export { vectorize, type Ufunc, type VectorizeOptions } from './library/vectorize.js';
export { guvectorize, type Gufunc, type GuvectorizeOptions } from './library/guvectorize.js';
export type { GufuncLayout } from './library/gufunc-layout.js';
export type { UfuncCallOptions, UfuncResult } from './library/ufunc-operands.js';
export type { UfuncSignature, UfuncSignatureSpec } from './library/ufunc-signature.js';
export {
  stream,
  defaultStream,
  event,
  eventElapsedTime,
  type JitStream,
  type JitEvent,
  type StreamMakerOptions,
  type EventMakerOptions,
} from './library/stream-makers.js';
export { SimulatorStream } from './library/simulator-stream.js';
export { SimulatorEvent } from './library/simulator-event.js';
export {
  toDevice,
  deviceArray,
  deviceArrayLike,
  pinnedArray,
  mappedArray,
  managedArray,
  type DeviceArrayMakerOptions,
  type ArrayDtype,
} from './library/device-arrays.js';
export { DeviceArray } from '@cuda-js/core';
export { createXoroshiro128pStates, type Xoroshiro128pStatesOptions } from './library/xoroshiro128p-states.js';
export {
  xoroshiro128p_next,
  xoroshiro128p_uniform_float32,
  xoroshiro128p_uniform_float64,
  xoroshiro128p_normal_float32,
  xoroshiro128p_normal_float64,
} from './library/random.js';
export type { CapturedArrayConstant } from './captured-arrays.js';
export type { ElementArray, ElementArrayConstructor } from './simulate/element-types.js';
export type {
  LaunchArgument,
  LaunchArguments,
  ArrayArgument,
  NumberArgument,
  BigIntArgument,
  BooleanArgument,
  HostTypedArray,
  ArrayProtocolObject,
  PointerArgument,
} from './launch/launch-arguments.js';
// Kernels compiled ahead of time (cuda-js build-kernels): built from declared signatures, loaded with no libNVVM.
export { buildKernelArtifact, type BuildKernelArtifactOptions } from './aot/build-kernel-artifact.js';
export { collectKernels, type CollectKernelsOptions } from './aot/collect-kernels.js';
export {
  buildModuleKernels,
  importDeclaredKernels,
  type BuildModuleKernelsOptions,
  type BuiltModuleKernels,
} from './aot/build-module-kernels.js';
export { loadKernelArtifact, unloadKernelArtifact, loadedKernelArtifacts } from './aot/kernel-artifacts.js';
export {
  readKernelArtifact,
  writeKernelArtifact,
  kernelArtifactFiles,
  serializeKernelArtifact,
  type KernelArtifactFile,
  type SerializedKernelArtifact,
  type SerializedArtifactCode,
  type WrittenKernelArtifact,
} from './aot/artifact-files.js';
export {
  KERNEL_ARTIFACT_FORMAT,
  type KernelArtifact,
  type ArtifactKernel,
  type ArtifactSpecialization,
  type ArtifactCode,
} from './aot/kernel-artifact.js';
export { PTXAS_VARIABLE } from './aot/ptxas.js';
export { pipelineCounts, type PipelineCounts } from './pipeline-counts.js';
