import { formatValue } from '@cuda-js/memory-view';
import type { Device } from '../device/device.js';
import { checkDeviceOrdinal } from './device-context.js';

/**
 * The Devices of this realm, recognised by this brand (as `instanceof Device`
 * would, with no look-alike accepted) by the floors below the Device facade,
 * which may not import it. Filled by Device's constructor.
 */
const devices = new WeakSet<object>();

/**
 * @internal The key of the method by which a Device gives the Device of
 * another ordinal (`Device.get`). A floor below the facade that holds a
 * Device it was given (a memory resource's) answers with Devices through it,
 * with no lookup of its own.
 */
export const DEVICE_OF_ORDINAL: unique symbol = Symbol('cuda-js: the Device of an ordinal');

/** @internal Called by Device's constructor. */
export function brandDevice(device: object): void {
  devices.add(device);
}

/** Whether `value` is a Device (made by its constructor). */
export function isDevice(value: unknown): value is Device {
  return typeof value === 'object' && value !== null && devices.has(value);
}

/**
 * The ordinal of a Device or of a device ordinal, checked as `Device.get`
 * checks it (a RangeError, or a DeviceNotFoundError where there is no such
 * device); anything else is a TypeError that names `what`.
 */
export function toDeviceOrdinal(value: Device | number, what: string): number {
  if (isDevice(value)) return value.ordinal;
  if (typeof value === 'number') {
    checkDeviceOrdinal(value);
    return value;
  }
  throw new TypeError(`${what}: a Device or a device ordinal, got ${formatValue(value)}`);
}
