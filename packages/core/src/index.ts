export { Device } from './device/device.js';
export { deviceCount, driverVersion } from './context/driver-init.js';
export { Buffer, type HostBytes } from './memory/buffer.js';
export { DeviceArray, type ArrayMemory, type DeviceArrayOptions, type HostArrayTarget } from './device/device-array.js';
export {
  DeviceMemoryResource,
  PinnedMemoryResource,
  LegacyPinnedMemoryResource,
  ManagedMemoryResource,
  type MemoryResource,
  type DeviceMemoryResourceOptions,
} from './memory/memory-resources.js';
export type { IpcAllocationHandle } from './memory/ipc/ipc-allocation-handle.js';
export type { IpcBufferDescriptor } from './memory/ipc/ipc-buffer-descriptor.js';
// one class for IPC failures across the stack; interprocess events (Event.ipcDescriptor) are @cuda-js/streams'
export { IpcError } from './errors.js';
export { ManagedBuffer, AccessedBy } from './memory/managed-buffer.js';
export { prefetchBatch, discardBatch, discardPrefetchBatch } from './memory/managed-memory-ops.js';
export { Host } from './memory/host.js';
export type { ManagedLocation } from './memory/managed-location.js';
// thrown by Buffer.asArrayBuffer and typedArray where memory is not host-accessible
export { HostViewError } from '@cuda-js/bindings';
export { LaunchConfig, isLaunchConfigKey, type LaunchConfigOptions, type Dim3 } from './launch/launch-config.js';
export { launch } from './launch/launch.js';
export { LaunchPlan } from './device/launch-plan.js';
export { launchBatch, LaunchBatch } from './launch/launch-batch.js';
export type { ArgumentLayout, ArgumentSlot, ArraySlot, ScalarSlot } from './launch/argument-layout.js';
export {
  readKernelParameters,
  type KernelArgument,
  type KernelParameter,
  type LaunchableKernel,
} from './launch/kernel-parameters.js';
export {
  Scalar,
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f16,
  bf16,
  f32,
  f64,
  bool,
  isScalarType,
  dtypeOfScalarType,
  type ScalarType,
} from './launch/scalar.js';
export {
  roundToFloat16,
  roundToBfloat16,
  float16Bits,
  float16FromBits,
  bfloat16Bits,
  bfloat16FromBits,
} from './launch/half-floats.js';
export {
  CoreError,
  CoreOptionError,
  DeviceNotFoundError,
  LaunchConfigError,
  LaunchArgumentError,
  LaunchBatchError,
  KernelParametersError,
  CopyError,
  MemoryArgumentError,
} from './errors.js';
export { ClosedResourceError } from '@cuda-js/bindings';
export { DeviceMismatchError, PeerAccessError, CollectiveArgumentError, CommunicatorStateError } from './errors.js';
export * from './nccl/index.js';
// thrown by Communicator's calls where NCCL itself fails
export { NcclError } from '@cuda-js/bindings';
export { canAccessMemory, deviceOfStream } from './device/device-queries.js';
export { TensorMapError } from './errors.js';
export { ByValueArgument } from './launch/by-value-argument.js';
export { TensorMapDescriptor } from './tensor-map/tensor-map-descriptor.js';
export type { TensorMapTiledOptions } from './tensor-map/tensor-map-layout.js';
export type {
  TensorMapDataType,
  TensorMapInterleave,
  TensorMapSwizzle,
  TensorMapL2Promotion,
  TensorMapOOBFill,
} from './tensor-map/tensor-map-options.js';
export { GraphStateError, GraphArgumentError, GraphInstantiateError, GraphUpdateError } from './errors.js';
export { GraphBuilder, type GraphBuildMode } from './graph/graph-builder.js';
export { DeviceStream } from './graph/device-stream.js';
export { Graph, type GraphCompleteOptions } from './graph/graph.js';
export { GraphDefinition, type GraphDefinitionOptions } from './graph/graph-definition.js';
export { GraphNode, AllocNode, ConditionalNode } from './graph/graph-node.js';
export {
  GraphNodeMethods,
  type GraphMemory,
  type GraphMemsetOptions,
  type GraphAllocateOptions,
} from './graph/graph-node-methods.js';
export { GraphCondition, type ConditionalKind } from './graph/graph-conditional.js';
export type { GraphDebugPrintOptions } from './graph/graph-debug-print.js';
export type { GraphSource } from './graph/graph-source.js';
export {
  DEVICE_ATTRIBUTES,
  type DeviceAttributeName,
  type DeviceAttributeValues,
} from './generated/device-attributes.js';
export * from './system/index.js';
