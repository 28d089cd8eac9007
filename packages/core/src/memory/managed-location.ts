import { driver, type DriverTypes } from '@cuda-js/bindings';
import type { Device } from '../device/device.js';
import { isDevice } from '../context/device-identity.js';
import { MemoryArgumentError } from '../errors.js';
import { Host } from './host.js';

/** Where managed memory may live, be preferred, be accessed from or be prefetched to. */
export type ManagedLocation = Device | Host;

/** The Device of an ordinal, as the Device that made a managed resource gives it: locations that the driver reports are made with it. */
export type DeviceOfOrdinal = (ordinal: number) => Device;

/** What a location may be for an operation: cuda.core's rules (the driver's, checked before it is asked). */
export type LocationUse = 'prefetch' | 'preferredLocation' | 'accessedBy';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return `${typeof value} ${String(value)}`;
}

/**
 * The `CUmemLocation` of a {@link Device} or a {@link Host}, checked for its
 * use: `accessedBy` takes a device or any host (no NUMA node); the others
 * take every kind of location.
 */
export function memLocationOf(location: unknown, use: LocationUse, what: string): DriverTypes.CUmemLocation_v1 {
  if (isDevice(location)) return { type: driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, id: location.ordinal };
  if (Host.isHost(location)) {
    if (use === 'accessedBy' && (location.numaId !== undefined || location.isNumaCurrent)) {
      throw new MemoryArgumentError(
        `${what}: accessedBy takes a Device or new Host() (any host), not ${location.toString()}`,
      );
    }
    return location.toMemLocation();
  }
  throw new MemoryArgumentError(`${what}: a location is a Device or a Host, got ${describe(location)}`);
}

/** The location of a `CUmemLocation` that the driver reported, or undefined for none (`CU_MEM_LOCATION_TYPE_INVALID`). */
export function locationFromMem(type: number, id: number, deviceOf: DeviceOfOrdinal): ManagedLocation | undefined {
  const types = driver.CUmemLocationType;
  switch (type) {
    case types.CU_MEM_LOCATION_TYPE_DEVICE:
      return deviceOf(id);
    case types.CU_MEM_LOCATION_TYPE_HOST:
      return new Host();
    case types.CU_MEM_LOCATION_TYPE_HOST_NUMA:
      return new Host({ numaId: id });
    case types.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
      return Host.numaCurrent();
    default:
      return undefined;
  }
}

const { CU_DEVICE_CPU, CU_DEVICE_INVALID } = driver.constants;

/** The location of a legacy (device ordinal) range attribute: `-1` the host, `-2` none. */
export function locationFromOrdinal(ordinal: number, deviceOf: DeviceOfOrdinal): ManagedLocation | undefined {
  if (ordinal === CU_DEVICE_INVALID) return undefined;
  if (ordinal === CU_DEVICE_CPU) return new Host();
  return ordinal >= 0 ? deviceOf(ordinal) : undefined;
}

/** Whether two locations are the same place. */
export function sameLocation(a: ManagedLocation, b: ManagedLocation): boolean {
  if (isDevice(a) || isDevice(b)) return a === b;
  return a.equals(b);
}
