export { Device } from './device.js';
export { deviceCount, driverVersion } from './driver-init.js';
export { Buffer, type HostBytes } from './buffer.js';
export {
  DeviceMemoryResource,
  PinnedMemoryResource,
  LegacyPinnedMemoryResource,
  ManagedMemoryResource,
  type MemoryResource,
} from './memory-resources.js';
export { LaunchConfig, type LaunchConfigOptions, type Dim3 } from './launch-config.js';
export { launch } from './launch.js';
export { LaunchPlan } from './launch-plan.js';
export type { ArgumentLayout, ArgumentSlot, ArraySlot, ScalarSlot } from './argument-layout.js';
export { readKernelParameters, type KernelArgument, type KernelParameter, type LaunchableKernel } from './kernel-parameters.js';
export { Scalar, i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64, bool, isScalarType, dtypeOfScalarType, type ScalarType } from './scalar.js';
export { DeviceNotFoundError, LaunchConfigError, LaunchArgumentError, CopyError } from './errors.js';
export { DEVICE_ATTRIBUTES, type DeviceAttributeName, type DeviceAttributeValues } from './generated/device-attributes.js';
