import { toDeviceOrdinal } from '../context/device-identity.js';
import { streamDeviceOrdinal } from '../context/multi-device.js';
import { memoryAccessible } from '../context/peer-access.js';
import { Device } from './device.js';

// The public questions about devices whose answers are Devices: the floors
// below answer them by ordinal.

/** `value` as a Device: a Device, or an ordinal (`Device.get`, which says when there is no such device). */
export function toDevice(value: Device | number, what: string): Device {
  return Device.get(toDeviceOrdinal(value, what));
}

/** The device a stream belongs to; undefined for a default stream, which runs on the current context's device. */
export function deviceOfStream(stream: bigint): Device | undefined {
  const ordinal = streamDeviceOrdinal(stream);
  return ordinal === undefined ? undefined : Device.get(ordinal);
}

/**
 * Whether a kernel or stream of `accessor` may address the memory at `ptr`,
 * which lives on `owner`: the same device, or memory of a pool that grants
 * `accessor` access (`DeviceMemoryResource.peerAccessibleBy`). Peer access
 * made outside cuda-js for memory of no pool (cuCtxEnablePeerAccess) is not
 * known here.
 */
export function canAccessMemory(accessor: Device, ptr: bigint, owner: Device): boolean {
  return memoryAccessible(accessor.ordinal, ptr, owner.ordinal);
}
