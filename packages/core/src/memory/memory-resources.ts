import { driver, type CUdeviceptr, type CUmemoryPool, type CUstream } from '@cuda-js/bindings';
import { brandHandle, releaseAsync, releaseInBackground } from '@cuda-js/bindings/runtime';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { Buffer } from './buffer.js';
import { checkCoreOptions, STREAM_OPTIONS } from '../core-options.js';
import type { Device } from '../device/device.js';
import type { IpcAllocationHandle } from './ipc/ipc-allocation-handle.js';
import { ManagedBuffer } from './managed-buffer.js';
import { brandDeviceMemoryResource } from './device-memory-resource-brand.js';
import { notIpcEnabledError, OwnedMemoryPool } from './memory-pool.js';
import { DEVICE_OF_ORDINAL } from '../context/device-identity.js';
import { MemoryArgumentError } from '../errors.js';
import { enterDeviceFor, hasSeveralDevices } from '../context/multi-device.js';
import { poolAccessibleBy, poolGrantsAccess, setPoolAccessibleBy } from '../context/peer-access.js';

/** Where a buffer's memory comes from, and how it goes back. */
export interface MemoryResource {
  /** Allocates `size` bytes; device pools order the allocation on `stream`. */
  allocate(size: number, options?: { stream?: StreamArgument }): Buffer;
  /** Returns memory; called by Buffer.close(). May wait for the device where the release does (pinned and managed memory). */
  deallocate(ptr: bigint, size: number, stream: bigint): void;
  /**
   * Returns memory without blocking the JS thread, settling when it is given
   * back; called by Buffer.closeAsync(). Resources whose release may wait for
   * the device implement it; others fall back to {@link deallocate}.
   */
  deallocateAsync?(ptr: bigint, size: number, stream: bigint): Promise<void>;
  /**
   * Queues the release off the JS thread and returns at once; called when a
   * forgotten Buffer is collected, so that a finalizer never waits for a
   * running kernel on the event loop.
   */
  deallocateInBackground?(ptr: bigint, size: number, stream: bigint): void;
  readonly isDeviceAccessible: boolean;
  readonly isHostAccessible: boolean;
  /** The device the memory lives on; undefined for host memory. */
  readonly device: Device | undefined;
}

function checkSize(size: number, what: string): void {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new MemoryArgumentError(`${what}: size must be a non-negative safe integer, got ${String(size)}`);
}

/** Options of a {@link DeviceMemoryResource}: an existing pool, or a pool of its own (`ipcEnabled`, `maxSize`). */
export interface DeviceMemoryResourceOptions {
  /** A CUmemoryPool to allocate from; the resource does not own it (close() leaves it). */
  readonly pool?: bigint | undefined;
  /** Make a pool of the resource's own that other processes can import ({@link DeviceMemoryResource.allocationHandle}; Linux). */
  readonly ipcEnabled?: boolean | undefined;
  /** The own pool's largest size in bytes (0: the system's limit); giving it makes a pool of the resource's own. */
  readonly maxSize?: number | undefined;
  /** Devices (or ordinals) that may address the pool's memory: {@link DeviceMemoryResource.peerAccessibleBy}, set at construction. */
  readonly peerAccessibleBy?: readonly (Device | number)[] | undefined;
}

/**
 * Stream-ordered device memory from a pool: cuMemAllocFromPoolAsync. The
 * device's default pool unless given one; with `ipcEnabled: true` or a
 * `maxSize`, a pool of its own (cuMemPoolCreate), which close() destroys.
 * An IPC-enabled pool is shared with other processes: {@link allocationHandle},
 * {@link DeviceMemoryResource.fromAllocationHandle}, then Buffer's
 * `ipcDescriptor()` and `Buffer.fromIpcDescriptor`.
 */
export class DeviceMemoryResource implements MemoryResource, Disposable {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  #pool: CUmemoryPool | undefined;
  /** The pool that this resource made or imported, which close() destroys. */
  #owned: OwnedMemoryPool | undefined;

  constructor(
    readonly device: Device,
    options: DeviceMemoryResourceOptions = {},
  ) {
    brandDeviceMemoryResource(this);
    this.#owned = OwnedMemoryPool.fromOptions(device, options);
    // a pool that the caller names is taken as the handle it says it is
    if (this.#owned === undefined) this.#pool = options.pool as CUmemoryPool | undefined;
    if (options.peerAccessibleBy !== undefined) this.peerAccessibleBy = options.peerAccessibleBy;
  }

  /**
   * The other devices whose kernels and streams may address this pool's
   * memory (cuMemPoolGetAccess), as cuda.core's `peer_accessible_by`.
   * Setting it grants read-write access to exactly those (the owner always
   * has it) and takes it from the rest, for every allocation of the pool,
   * past and future (cuMemPoolSetAccess). A device that cannot access this
   * one (`device.canAccessPeer`) is a `PeerAccessError`, an ordinal with no
   * device a `DeviceNotFoundError`. The default pool is the one that
   * `device.allocate()` uses.
   */
  get peerAccessibleBy(): Device[] {
    // the resource's own Device gives the Devices of the other ordinals (Device.get)
    return poolAccessibleBy(this.pool, this.device.ordinal).map((ordinal) => this.device[DEVICE_OF_ORDINAL](ordinal));
  }

  set peerAccessibleBy(devices: readonly (Device | number)[]) {
    setPoolAccessibleBy(this.pool, this.device.ordinal, devices, 'DeviceMemoryResource.peerAccessibleBy');
  }

  /**
   * Imports, in this process, the IPC-enabled pool of another process from its
   * {@link allocationHandle} (sent by `process.send`, `postMessage`, ...): the
   * exporter's file descriptor is copied with `pidfd_getfd` (Linux 5.6+; same
   * user and ptrace permission, see `duplicateFdFromProcess` of
   * `@cuda-js/bindings`), imported, and the copy closed. The handle is checked
   * strictly first (an `IpcError`). The resource allocates nothing: it takes
   * the exporter's buffers (`Buffer.fromIpcDescriptor`). close() releases the
   * import.
   */
  static fromAllocationHandle(device: Device, handle: IpcAllocationHandle): DeviceMemoryResource {
    const owned = OwnedMemoryPool.fromAllocationHandle(device, handle);
    const resource = new DeviceMemoryResource(device);
    resource.#owned = owned;
    return resource;
  }

  /** The CUmemoryPool handle; ClosedResourceError once an own pool was closed. */
  get pool(): CUmemoryPool {
    if (this.#owned) return this.#owned.handle;
    this.#pool ??= driver.cuDeviceGetDefaultMemPool(this.device.handle);
    return this.#pool;
  }

  /** Whether other processes can import this resource's pool (made with `ipcEnabled: true`, or imported). */
  get isIpcEnabled(): boolean {
    return this.#owned?.ipcEnabled ?? false;
  }

  /**
   * @internal Readies the pool for `Buffer.ipcDescriptor` (the driver exports
   * a pool's buffers only once the pool itself was exported): the same
   * descriptor {@link allocationHandle} gives out.
   */
  prepareBufferExport(): void {
    this.#owned?.exportDescriptor();
  }

  /** Whether the pool was imported from another process (cuda.core's `is_mapped`): it takes that process's buffers and allocates none. */
  get isImported(): boolean {
    return this.#owned?.imported ?? false;
  }

  /**
   * A plain, JSON-serializable handle of this IPC-enabled pool, which another
   * process imports with {@link DeviceMemoryResource.fromAllocationHandle}:
   * this process's id and a file descriptor of the pool, open until
   * {@link close}; keep the resource open until every importer has imported it.
   * An `IpcError` for resources that are not IPC-enabled or were imported.
   */
  allocationHandle(): IpcAllocationHandle {
    if (this.#owned === undefined)
      throw notIpcEnabledError('DeviceMemoryResource.allocationHandle', 'the default or a given pool');
    return this.#owned.allocationHandle(this.device);
  }

  /** Whether close() destroyed this resource's own pool (false for the default or a given pool, which close() leaves). */
  get closed(): boolean {
    return this.#owned?.closed ?? false;
  }

  /**
   * Destroys a pool of the resource's own (made or imported), once: later
   * allocations are a ClosedResourceError. Buffers still open keep their
   * memory until they are closed (the driver releases the pool then). Closes
   * the descriptor given out by {@link allocationHandle}. The default or a
   * given pool is left as it is (as in cuda.core).
   */
  close(): void {
    this.#owned?.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  allocate(size: number, options: { stream?: StreamArgument | undefined } = {}): Buffer {
    options = checkCoreOptions('DeviceMemoryResource.allocate', options, STREAM_OPTIONS);
    checkSize(size, 'DeviceMemoryResource.allocate');
    this.#owned?.checkCanAllocate('DeviceMemoryResource.allocate');
    const stream = streamHandle(options.stream ?? 0n);
    // with several devices the allocation is ordered on the stream's device, which must reach the pool's memory
    if (hasSeveralDevices())
      enterDeviceFor('DeviceMemoryResource.allocate', stream, this.device.ordinal, 0n, (d) =>
        poolGrantsAccess(this.pool, this.device.ordinal, d),
      );
    else this.device.ensureCurrent();
    // a zero-byte request still gets a distinct allocation, as the driver needs size > 0
    const ptr = driver.cuMemAllocFromPoolAsync(Math.max(size, 1), this.pool, stream);
    return new Buffer(ptr, size, this, stream);
  }

  deallocate(ptr: bigint, _size: number, stream: bigint): void {
    driver.cuMemFreeAsync(brandHandle<CUdeviceptr>(ptr), brandHandle<CUstream>(stream));
  }
}

/** Page-locked host memory, mapped into the device's address space (cuMemHostAlloc, portable + device-mapped). */
export class PinnedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;
  readonly device = undefined;

  allocate(size: number, options?: { stream?: StreamArgument | undefined }): Buffer {
    // host memory: the stream orders nothing, but a misspelt key is still refused
    options = checkCoreOptions('PinnedMemoryResource.allocate', options, STREAM_OPTIONS);
    checkSize(size, 'PinnedMemoryResource.allocate');
    const { CU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_DEVICEMAP } = driver.constants;
    const ptr = driver.cuMemHostAlloc(Math.max(size, 1), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    return new Buffer(ptr, size, this, 0n);
  }

  /** cuMemFreeHost, which waits for the device to finish its work. */
  deallocate(ptr: bigint): void {
    driver.cuMemFreeHost(ptr);
  }

  /** cuMemFreeHost on the bindings' release thread, as a Promise. */
  deallocateAsync(ptr: bigint): Promise<void> {
    return releaseAsync('cuMemFreeHost', ptr);
  }

  /** cuMemFreeHost on the bindings' release thread, not awaited. */
  deallocateInBackground(ptr: bigint): void {
    releaseInBackground('cuMemFreeHost', ptr);
  }
}

/** Page-locked host memory the legacy way (cuMemAllocHost); freed as {@link PinnedMemoryResource}'s is. */
export class LegacyPinnedMemoryResource extends PinnedMemoryResource {
  override allocate(size: number, options?: { stream?: StreamArgument | undefined }): Buffer {
    options = checkCoreOptions('LegacyPinnedMemoryResource.allocate', options, STREAM_OPTIONS);
    checkSize(size, 'LegacyPinnedMemoryResource.allocate');
    return new Buffer(driver.cuMemAllocHost(Math.max(size, 1)), size, this, 0n);
  }
}

/**
 * Unified (managed) memory, migrated between host and device on demand
 * (cuMemAllocManaged, attached globally). Its buffers are {@link ManagedBuffer}s:
 * advice (read-mostly, preferred location, accessed-by), prefetch and discard.
 */
export class ManagedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;

  constructor(readonly device: Device) {}

  allocate(size: number, options?: { stream?: StreamArgument | undefined }): ManagedBuffer {
    options = checkCoreOptions('ManagedMemoryResource.allocate', options, STREAM_OPTIONS);
    checkSize(size, 'ManagedMemoryResource.allocate');
    this.device.ensureCurrent();
    const ptr = driver.cuMemAllocManaged(Math.max(size, 1), driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL);
    return new ManagedBuffer(ptr, size, this, 0n);
  }

  /** cuMemFree, which waits for the device to finish its work. */
  deallocate(ptr: bigint): void {
    driver.cuMemFree(brandHandle<CUdeviceptr>(ptr));
  }

  /** cuMemFree on the bindings' release thread, as a Promise. */
  deallocateAsync(ptr: bigint): Promise<void> {
    return releaseAsync('cuMemFree', ptr);
  }

  /** cuMemFree on the bindings' release thread, not awaited. */
  deallocateInBackground(ptr: bigint): void {
    releaseInBackground('cuMemFree', ptr);
  }
}
