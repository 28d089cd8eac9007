import type { Device } from './device.js';

/** Device.get, Device.all and `instanceof Device`, as device.ts registers them. */
interface DeviceLookup {
  get(ordinal: number): Device;
  all(): Device[];
  is(value: unknown): value is Device;
}

let lookup: DeviceLookup | undefined;

/**
 * Called once by device.ts as it loads. The modules that Buffer imports
 * (peer copies, the multi-device checks) reach devices through this: they
 * cannot import device.ts, which imports Buffer back (through the memory
 * resources) before Buffer is defined.
 */
export function registerDeviceLookup(devices: DeviceLookup): void {
  lookup = devices;
}

/** The registered lookup; device.ts is loaded with the package's entry, so this holds whenever a Device exists. */
export function devices(): DeviceLookup {
  if (lookup === undefined) throw new Error('@cuda-js/core: device.ts was not loaded (import the package entry, @cuda-js/core)');
  return lookup;
}
