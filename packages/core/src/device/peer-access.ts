import { driver, type CUmemoryPool } from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import type { Device } from './device.js';
import { devices } from './device-registry.js';
import { PeerAccessError } from '../errors.js';

const LOCATION_DEVICE = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
const ACCESS_NONE = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE;
const ACCESS_READWRITE = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
const MEMPOOL_HANDLE = driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE;

/** `value` as a Device: a Device, or an ordinal (`Device.get`, which says when there is no such device). */
export function toDevice(value: Device | number, what: string): Device {
  if (devices().is(value)) return value;
  if (typeof value === 'number') return devices().get(value);
  throw new TypeError(`${what}: a Device or a device ordinal, got ${formatValue(value)}`);
}

/** Whether `device` can address memory of `peer` (cuDeviceCanAccessPeer); a device always addresses its own. */
export function devicesCanAccess(device: Device, peer: Device): boolean {
  if (device === peer) return true;
  return driver.cuDeviceCanAccessPeer(device.handle, peer.handle) !== 0;
}

/** The access that `pool` grants `accessor` (cuMemPoolGetAccess): a `CUmemAccess_flags` value. */
function poolAccess(pool: CUmemoryPool, accessor: Device): number {
  return driver.cuMemPoolGetAccess(pool, { type: LOCATION_DEVICE, id: accessor.ordinal });
}

/** Whether `pool` (of `owner`) lets `accessor` address its memory. */
export function poolGrantsAccess(pool: CUmemoryPool, owner: Device, accessor: Device): boolean {
  return accessor === owner || poolAccess(pool, accessor) !== ACCESS_NONE;
}

/** The devices other than `owner` that may address the memory of `pool`. */
export function poolAccessibleBy(pool: CUmemoryPool, owner: Device): Device[] {
  return devices()
    .all()
    .filter((d) => d !== owner && poolAccess(pool, d) !== ACCESS_NONE);
}

/**
 * Grants read-write access to the memory of `pool` (owned by `owner`) to
 * exactly `peers` besides the owner, and takes it from every other device
 * (cuMemPoolSetAccess, for the devices whose access changes): cuda.core's
 * `peer_accessible_by`. Every peer is checked with cuDeviceCanAccessPeer first.
 */
export function setPoolAccessibleBy(pool: CUmemoryPool, owner: Device, peers: readonly (Device | number)[], what: string): void {
  if (!Array.isArray(peers)) throw new TypeError(`${what}: an array of Devices or device ordinals, got ${formatValue(peers)}`);
  const wanted = new Set(peers.map((p, i) => toDevice(p, `${what}[${i}]`)));
  wanted.delete(owner); // the owner always has access; the driver refuses to change it
  for (const peer of wanted) {
    if (!devicesCanAccess(peer, owner)) throw new PeerAccessError(`${what}: ${peer} cannot access the memory of ${owner} (cuDeviceCanAccessPeer is 0)`);
  }
  const changes = [];
  for (const device of devices().all()) {
    if (device === owner) continue;
    const has = poolAccess(pool, device) !== ACCESS_NONE;
    if (wanted.has(device) && !has) changes.push({ location: { type: LOCATION_DEVICE, id: device.ordinal }, flags: ACCESS_READWRITE });
    else if (!wanted.has(device) && has) changes.push({ location: { type: LOCATION_DEVICE, id: device.ordinal }, flags: ACCESS_NONE });
  }
  if (changes.length > 0) driver.cuMemPoolSetAccess(pool, changes);
}

/**
 * Whether a kernel or stream of `accessor` may address the memory at `ptr`,
 * which lives on `owner`: the same device, or memory of a pool that grants
 * `accessor` access (`DeviceMemoryResource.peerAccessibleBy`). Peer access
 * made outside cuda-js for memory of no pool (cuCtxEnablePeerAccess) is not
 * known here.
 */
export function canAccessMemory(accessor: Device, ptr: bigint, owner: Device): boolean {
  if (accessor === owner) return true;
  let pool: bigint;
  try {
    pool = driver.cuPointerGetAttribute(MEMPOOL_HANDLE, ptr) as bigint;
  } catch {
    return false; // not memory the driver knows as a pool's
  }
  return pool !== 0n && poolAccess(pool as CUmemoryPool, accessor) !== ACCESS_NONE;
}

/**
 * {@link canAccessMemory} by ordinals, for the launch checks: whether a
 * kernel of device `accessorOrdinal` may address the memory at `ptr` of
 * device `ownerOrdinal`. False where the driver cannot say.
 */
export function peerCanAddress(ptr: bigint, ownerOrdinal: number, accessorOrdinal: number): boolean {
  try {
    return canAccessMemory(devices().get(accessorOrdinal), ptr, devices().get(ownerOrdinal));
  } catch {
    return false;
  }
}
