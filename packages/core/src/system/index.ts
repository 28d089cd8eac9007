export { system, type System } from './system.js';
export {
  SystemDevice,
  type SystemDeviceInfo,
  type SystemDeviceMemory,
  type SystemDeviceUtilization,
  type SystemClockSet,
  type SystemDeviceClocks,
  type SystemDevicePower,
  type SystemDevicePci,
  type SystemNvLinkLink,
  type SystemDeviceNvLink,
} from './system-device.js';
export { SystemUnavailableError } from './system-unavailable-error.js';
