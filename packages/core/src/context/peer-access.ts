import { driver, type CUmemoryPool } from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import type { Device } from '../device/device.js';
import { PeerAccessError } from '../errors.js';
import { deviceHandle, deviceLabel } from './device-context.js';
import { toDeviceOrdinal } from './device-identity.js';
import { deviceCount } from './driver-init.js';

// Peer access by device ordinal: the Device facade (and its public canAccessPeer,
// canAccessMemory) and the memory resources build on these.

const LOCATION_DEVICE = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
const ACCESS_NONE = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE;
const ACCESS_READWRITE = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
const MEMPOOL_HANDLE = driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE;

/** Whether device `ordinal` can address memory of device `peer` (cuDeviceCanAccessPeer); a device always addresses its own. */
export function devicesCanAccess(ordinal: number, peer: number): boolean {
  if (ordinal === peer) return true;
  return driver.cuDeviceCanAccessPeer(deviceHandle(ordinal), deviceHandle(peer)) !== 0;
}

/** The access that `pool` grants device `accessor` (cuMemPoolGetAccess): a `CUmemAccess_flags` value. */
function poolAccess(pool: CUmemoryPool, accessor: number): number {
  return driver.cuMemPoolGetAccess(pool, { type: LOCATION_DEVICE, id: accessor });
}

/** Whether `pool` (of device `owner`) lets device `accessor` address its memory. */
export function poolGrantsAccess(pool: CUmemoryPool, owner: number, accessor: number): boolean {
  return accessor === owner || poolAccess(pool, accessor) !== ACCESS_NONE;
}

/** The ordinals of the devices other than `owner` that may address the memory of `pool`. */
export function poolAccessibleBy(pool: CUmemoryPool, owner: number): number[] {
  const out: number[] = [];
  for (let d = 0; d < deviceCount(); d++) if (d !== owner && poolAccess(pool, d) !== ACCESS_NONE) out.push(d);
  return out;
}

/**
 * Grants read-write access to the memory of `pool` (owned by device `owner`)
 * to exactly `peers` besides the owner, and takes it from every other device
 * (cuMemPoolSetAccess, for the devices whose access changes): cuda.core's
 * `peer_accessible_by`. Every peer is checked with cuDeviceCanAccessPeer first.
 */
export function setPoolAccessibleBy(
  pool: CUmemoryPool,
  owner: number,
  peers: readonly (Device | number)[],
  what: string,
): void {
  if (!Array.isArray(peers))
    throw new TypeError(`${what}: an array of Devices or device ordinals, got ${formatValue(peers)}`);
  const wanted = new Set(peers.map((p, i) => toDeviceOrdinal(p, `${what}[${i}]`)));
  wanted.delete(owner); // the owner always has access; the driver refuses to change it
  for (const peer of wanted) {
    if (!devicesCanAccess(peer, owner))
      throw new PeerAccessError(
        `${what}: ${deviceLabel(peer)} cannot access the memory of ${deviceLabel(owner)} (cuDeviceCanAccessPeer is 0)`,
      );
  }
  const changes = [];
  for (let device = 0; device < deviceCount(); device++) {
    if (device === owner) continue;
    const has = poolAccess(pool, device) !== ACCESS_NONE;
    if (wanted.has(device) && !has)
      changes.push({ location: { type: LOCATION_DEVICE, id: device }, flags: ACCESS_READWRITE });
    else if (!wanted.has(device) && has)
      changes.push({ location: { type: LOCATION_DEVICE, id: device }, flags: ACCESS_NONE });
  }
  if (changes.length > 0) driver.cuMemPoolSetAccess(pool, changes);
}

/**
 * Whether a kernel or stream of device `accessor` may address the memory at
 * `ptr`, which lives on device `owner`: the same device, or memory of a pool
 * that grants `accessor` access (`DeviceMemoryResource.peerAccessibleBy`).
 * Peer access made outside cuda-js for memory of no pool
 * (cuCtxEnablePeerAccess) is not known here.
 */
export function memoryAccessible(accessor: number, ptr: bigint, owner: number): boolean {
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
 * {@link memoryAccessible} for the launch checks: whether a kernel of device
 * `accessorOrdinal` may address the memory at `ptr` of device
 * `ownerOrdinal`. False where the driver cannot say.
 */
export function peerCanAddress(ptr: bigint, ownerOrdinal: number, accessorOrdinal: number): boolean {
  try {
    // a device that does not exist addresses nothing, and owns nothing (a view may claim any ordinal)
    const count = deviceCount();
    if (ownerOrdinal < 0 || ownerOrdinal >= count || accessorOrdinal < 0 || accessorOrdinal >= count) return false;
    return memoryAccessible(accessorOrdinal, ptr, ownerOrdinal);
  } catch {
    return false;
  }
}
