import { driver, type CUstream } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { Buffer } from './buffer.js';
import { checkCoreOptions, STREAM_OPTIONS } from '../core-options.js';
import type { Device } from '../device/device.js';
import { DEVICE_OF_ORDINAL } from '../context/device-identity.js';
import { driverVersion } from '../context/driver-init.js';
import { MemoryArgumentError } from '../errors.js';
import {
  locationFromMem,
  locationFromOrdinal,
  memLocationOf,
  sameLocation,
  type LocationUse,
  type ManagedLocation,
} from './managed-location.js';

/** @internal Bytes of a managed buffer that the driver is asked about: a zero-byte buffer still has its one-byte allocation. */
export function managedRangeBytes(buffer: Buffer): number {
  return Math.max(buffer.size, 1);
}

/**
 * The Device of a device ordinal that the driver reported for `buffer`: given
 * by the Device of the buffer's resource (a ManagedMemoryResource is made for
 * one), which answers for every ordinal as `Device.get` does.
 */
function deviceOf(buffer: Buffer, ordinal: number): Device {
  const device = buffer.memoryResource.device;
  if (device === undefined)
    throw new TypeError(`${buffer}: its memory resource has no device to name device ${ordinal} by`);
  return device[DEVICE_OF_ORDINAL](ordinal);
}

function intAttribute(buffer: ManagedBuffer, attribute: number): number {
  const out = new Int32Array(1);
  driver.cuMemRangeGetAttribute(out, 4, attribute, buffer.ptr, managedRangeBytes(buffer));
  return out[0]!;
}

/** Whether the driver has the range attributes of CUDA 13 (`*_LOCATION_TYPE`, `*_LOCATION_ID`), which carry NUMA nodes. */
function hasLocationTypeAttributes(): boolean {
  return driverVersion().major >= 13;
}

/** A location range attribute: by type and id from CUDA 13 on, else the legacy device ordinal (-1 the host, -2 none). */
function locationAttribute(
  buffer: ManagedBuffer,
  legacy: number,
  type: number,
  id: number,
): ManagedLocation | undefined {
  const devices = (ordinal: number): Device => deviceOf(buffer, ordinal);
  if (hasLocationTypeAttributes())
    return locationFromMem(intAttribute(buffer, type), intAttribute(buffer, id), devices);
  return locationFromOrdinal(intAttribute(buffer, legacy), devices);
}

/**
 * The live `accessedBy` advice of a {@link ManagedBuffer}, as a set: reads ask
 * the driver (`CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY`), `add` and `delete` give
 * advice (`CU_MEM_ADVISE_SET_ACCESSED_BY`, `UNSET_ACCESSED_BY`). Entries are
 * Devices and `new Host()` (the driver keeps no NUMA node here). cuda.core's
 * `AccessedBySetProxy`.
 */
export class AccessedBy implements Iterable<ManagedLocation> {
  /** @internal from {@link ManagedBuffer.accessedBy} */
  constructor(readonly buffer: ManagedBuffer) {}

  /** The locations that the driver reports now. */
  #query(): ManagedLocation[] {
    const count = driver.cuDeviceGetCount() + 1; // every device and the host
    const out = new Int32Array(count);
    driver.cuMemRangeGetAttribute(
      out,
      count * 4,
      driver.CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
      this.buffer.ptr,
      managedRangeBytes(this.buffer),
    );
    const locations: ManagedLocation[] = [];
    const devices = (ordinal: number): Device => deviceOf(this.buffer, ordinal);
    for (const ordinal of out) {
      const location = locationFromOrdinal(ordinal, devices);
      if (location !== undefined) locations.push(location);
    }
    return locations;
  }

  /** Advises that `location` accesses the memory (the mapping is kept there: no fault on access). */
  add(location: ManagedLocation): this {
    this.buffer.advise(
      driver.CUmem_advise.CU_MEM_ADVISE_SET_ACCESSED_BY,
      location,
      'accessedBy',
      'ManagedBuffer.accessedBy.add',
    );
    return this;
  }

  /** Withdraws that advice; true where `location` had it. */
  delete(location: ManagedLocation): boolean {
    const had = this.has(location);
    this.buffer.advise(
      driver.CUmem_advise.CU_MEM_ADVISE_UNSET_ACCESSED_BY,
      location,
      'accessedBy',
      'ManagedBuffer.accessedBy.delete',
    );
    return had;
  }

  has(location: ManagedLocation): boolean {
    return this.#query().some((known) => sameLocation(known, location));
  }

  /** Withdraws the advice for every location that has it. */
  clear(): void {
    for (const location of this.#query()) this.delete(location);
  }

  get size(): number {
    return this.#query().length;
  }

  [Symbol.iterator](): Iterator<ManagedLocation> {
    return this.#query()[Symbol.iterator]();
  }

  toString(): string {
    return `AccessedBy(${this.#query().map(String).join(', ')})`;
  }
}

/**
 * Managed (unified) memory with the driver's advice and migration: what
 * `ManagedMemoryResource.allocate()` and `device.allocateManaged()` return.
 * cuda.core's `ManagedBuffer`: {@link readMostly}, {@link preferredLocation}
 * and {@link accessedBy} read the driver's state and give advice when set;
 * {@link prefetch}, {@link discard} and {@link discardPrefetch} are ordered on
 * a stream (default: the allocation's). Locations are Devices and {@link Host}s.
 *
 * ```ts
 * using buf = device.allocateManaged(n * 4);
 * buf.readMostly = true;
 * buf.preferredLocation = device;
 * buf.accessedBy.add(new Host());
 * buf.prefetch(device, { stream });
 * ```
 */
export class ManagedBuffer extends Buffer {
  /** Whether `CU_MEM_ADVISE_SET_READ_MOSTLY` applies to the whole buffer (read copies may live on each processor). */
  get readMostly(): boolean {
    return intAttribute(this, driver.CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) !== 0;
  }

  set readMostly(value: boolean) {
    if (typeof value !== 'boolean')
      throw new MemoryArgumentError(`ManagedBuffer.readMostly: a boolean, got ${typeof value}`);
    const advice = driver.CUmem_advise;
    this.advise(
      value ? advice.CU_MEM_ADVISE_SET_READ_MOSTLY : advice.CU_MEM_ADVISE_UNSET_READ_MOSTLY,
      undefined,
      'preferredLocation',
      'ManagedBuffer.readMostly',
    );
  }

  /** Where the driver prefers the memory to live, or undefined for no preference; set undefined to withdraw the advice. */
  get preferredLocation(): ManagedLocation | undefined {
    const a = driver.CUmem_range_attribute;
    return locationAttribute(
      this,
      a.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
      a.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
      a.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
    );
  }

  set preferredLocation(location: ManagedLocation | undefined) {
    const advice = driver.CUmem_advise;
    if (location === undefined)
      this.advise(
        advice.CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
        undefined,
        'preferredLocation',
        'ManagedBuffer.preferredLocation',
      );
    else
      this.advise(
        advice.CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
        location,
        'preferredLocation',
        'ManagedBuffer.preferredLocation',
      );
  }

  /** The locations that are advised to access the memory (a live set, see {@link AccessedBy}); assigning an iterable sets exactly those. */
  get accessedBy(): AccessedBy {
    return new AccessedBy(this);
  }

  set accessedBy(locations: Iterable<ManagedLocation>) {
    if (locations === null || typeof (locations as { [Symbol.iterator]?: unknown })?.[Symbol.iterator] !== 'function') {
      throw new MemoryArgumentError('ManagedBuffer.accessedBy: assign an iterable of Devices and Hosts');
    }
    // every entry is checked before any advice is given, so that a bad one changes nothing
    const wanted = [...locations];
    for (const location of wanted) memLocationOf(location, 'accessedBy', 'ManagedBuffer.accessedBy');
    const view = this.accessedBy;
    const current = [...view];
    for (const location of current) if (!wanted.some((w) => sameLocation(w, location))) view.delete(location);
    for (const location of wanted) if (!current.some((c) => sameLocation(c, location))) view.add(location);
  }

  /** Where the last prefetch moved the memory, or undefined where none did (or the driver cannot tell). */
  get lastPrefetchLocation(): ManagedLocation | undefined {
    const a = driver.CUmem_range_attribute;
    return locationAttribute(
      this,
      a.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
      a.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
      a.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
    );
  }

  /**
   * @internal `cuMemAdvise` over the whole buffer, `location` checked for its
   * use first. The driver ignores the location of read-mostly and
   * unset-preferred advice but still checks it: the host goes there, as in cuda.core.
   */
  advise(advice: number, location: ManagedLocation | undefined, use: LocationUse, what: string): void {
    const where =
      location === undefined
        ? { type: driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, id: 0 }
        : memLocationOf(location, use, what);
    driver.cuMemAdvise(this.ptr, managedRangeBytes(this), advice, where);
  }

  /** Migrates the memory to `location`, ordered on `stream` (default: the allocation's), with `cuMemPrefetchAsync`. */
  prefetch(location: ManagedLocation, options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('ManagedBuffer.prefetch', options, STREAM_OPTIONS);
    const where = memLocationOf(location, 'prefetch', 'ManagedBuffer.prefetch');
    const stream =
      options.stream === undefined
        ? brandHandle<CUstream>(this.allocationStream)
        : streamHandle(options.stream, 'ManagedBuffer.prefetch');
    driver.cuMemPrefetchAsync(this.ptr, managedRangeBytes(this), where, 0, stream);
  }

  /**
   * Lets the driver drop the memory's contents, ordered on `stream`: its pages
   * are released without being migrated, and read as undefined data later
   * (`cuMemDiscardBatchAsync`, which needs a CUDA 13 driver: an older one is
   * the driver's `CudaError` CUDA_ERROR_NOT_FOUND, naming the version).
   */
  discard(options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('ManagedBuffer.discard', options, STREAM_OPTIONS);
    const stream =
      options.stream === undefined
        ? brandHandle<CUstream>(this.allocationStream)
        : streamHandle(options.stream, 'ManagedBuffer.discard');
    driver.cuMemDiscardBatchAsync([this.ptr], [managedRangeBytes(this)], 0, stream);
  }

  /** {@link discard}, then the pages are made resident at `location` without their old contents (`cuMemDiscardAndPrefetchBatchAsync`, CUDA 13). */
  discardPrefetch(location: ManagedLocation, options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('ManagedBuffer.discardPrefetch', options, STREAM_OPTIONS);
    const where = memLocationOf(location, 'prefetch', 'ManagedBuffer.discardPrefetch');
    const stream =
      options.stream === undefined
        ? brandHandle<CUstream>(this.allocationStream)
        : streamHandle(options.stream, 'ManagedBuffer.discardPrefetch');
    driver.cuMemDiscardAndPrefetchBatchAsync([this.ptr], [managedRangeBytes(this)], [where], [0], 0, stream);
  }

  override toString(): string {
    return super.toString().replace(/^Buffer/, 'ManagedBuffer');
  }
}
