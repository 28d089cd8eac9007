import { closeSync } from 'node:fs';
import { driver, type CUmemoryPool } from '@cuda-js/bindings';
import { OwnedHandle } from '@cuda-js/bindings/runtime';
import { IpcError } from '@cuda-js/streams';
import type { Device } from '../device/device.js';
import type { DeviceMemoryResourceOptions } from './memory-resources.js';
import { exportPoolDescriptor, importPool, type IpcAllocationHandle } from './ipc/ipc-allocation-handle.js';
import { isAnything, isBoolean, type OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';
import { MemoryArgumentError } from '../errors.js';

/** The options of a pool of a DeviceMemoryResource's own (checked by {@link OwnedMemoryPool.fromOptions}). */
interface OwnPoolOptions {
  readonly pool?: unknown;
  readonly ipcEnabled?: unknown;
  readonly maxSize?: unknown;
}

// every option of DeviceMemoryResourceOptions (peerAccessibleBy is applied by the resource itself), so that a misspelt one is refused
// peerAccessibleBy is checked by the resource, with its own messages.
const POOL_OPTIONS = {
  pool: (v: unknown) => (typeof v === 'bigint' ? undefined : 'a CUmemoryPool (a bigint)'),
  ipcEnabled: isBoolean,
  maxSize: (v: unknown) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? undefined
      : "a non-negative safe integer (bytes; 0 for the system's limit)",
  peerAccessibleBy: isAnything,
} satisfies OptionTableOf<DeviceMemoryResourceOptions>;

/** Destroys the pool, and closes the descriptor that was exported for other processes. */
function releasePool(pool: CUmemoryPool, exported: { fd: number | undefined }): void {
  try {
    driver.cuMemPoolDestroy(pool);
  } finally {
    if (exported.fd !== undefined) closeSync(exported.fd);
    exported.fd = undefined;
  }
}

/** The IpcError of a resource that does not share its memory. */
export function notIpcEnabledError(what: string, resourceName: string): IpcError {
  return new IpcError(
    `${what}: the memory resource (${resourceName}) is not IPC-enabled; make it with new DeviceMemoryResource(device, { ipcEnabled: true })`,
  );
}

/**
 * @internal The pool that a DeviceMemoryResource made (cuMemPoolCreate) or
 * imported from another process (cuMemPoolImportFromShareableHandle); the
 * resource's close() destroys it, once, and a forgotten one is destroyed when
 * it is collected (the bindings' OwnedHandle). Allocations still live then keep
 * the driver's pool until they are freed.
 */
export class OwnedMemoryPool {
  readonly #owned: OwnedHandle<CUmemoryPool>;
  /** The descriptor made for allocationHandle(), kept open until the pool is destroyed: importers copy it from this process. */
  readonly #exported: { fd: number | undefined } = { fd: undefined };

  private constructor(
    pool: CUmemoryPool,
    /** Whether other processes can import the pool (POSIX file descriptor handles). */
    readonly ipcEnabled: boolean,
    /** Whether the pool came from another process: it cannot allocate, only take that process's buffers. */
    readonly imported: boolean,
  ) {
    const exported = this.#exported;
    this.#owned = new OwnedHandle(pool, this, (h) => releasePool(h, exported), 'DeviceMemoryResource');
  }

  /**
   * A pool of its own where the options ask for one (`ipcEnabled: true`, or a
   * `maxSize`); undefined for a given pool or the device's default one. Every
   * option is checked before the driver is called.
   */
  static fromOptions(device: Device, options: OwnPoolOptions): OwnedMemoryPool | undefined {
    const what = 'DeviceMemoryResource';
    // every value is checked by the table (a CoreOptionError)
    const { pool, ipcEnabled, maxSize } = checkCoreOptions<DeviceMemoryResourceOptions>(what, options, POOL_OPTIONS);
    const own = ipcEnabled === true || maxSize !== undefined;
    if (!own) return undefined;
    if (pool !== undefined)
      throw new MemoryArgumentError(
        `${what}: pool names an existing pool, ipcEnabled and maxSize make a new one: give one or the other`,
      );
    const types = driver.CUmemAllocationHandleType;
    device.ensureCurrent();
    const created = driver.cuMemPoolCreate({
      allocType: driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED,
      handleTypes: ipcEnabled ? types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : types.CU_MEM_HANDLE_TYPE_NONE,
      location: { type: driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, id: device.ordinal },
      maxSize: maxSize ?? 0,
    });
    return new OwnedMemoryPool(created, ipcEnabled === true, false);
  }

  /** The pool of another process's handle (checked strictly first: an IpcError). */
  static fromAllocationHandle(device: Device, handle: unknown): OwnedMemoryPool {
    return new OwnedMemoryPool(importPool(device, handle, 'DeviceMemoryResource.fromAllocationHandle'), true, true);
  }

  /** The CUmemoryPool; ClosedResourceError once destroyed. */
  get handle(): CUmemoryPool {
    return this.#owned.handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** Refuses allocation from an imported pool (the driver allows none), before the driver is asked. */
  checkCanAllocate(what: string): void {
    if (this.imported && !this.closed) {
      throw new IpcError(
        `${what}: this resource's pool was imported from another process, which alone allocates from it; import that process's buffers with Buffer.fromIpcDescriptor`,
      );
    }
  }

  /** The handle that other processes import the pool with; the descriptor behind it stays open until close. */
  allocationHandle(device: Device): IpcAllocationHandle {
    const what = 'DeviceMemoryResource.allocationHandle';
    if (!this.ipcEnabled) throw notIpcEnabledError(what, 'a DeviceMemoryResource of its own pool');
    if (this.imported)
      throw new IpcError(
        `${what}: this resource's pool was imported from another process; only the process that made it can share it`,
      );
    const fd = (this.#exported.fd ??= exportPoolDescriptor(this.handle));
    return { kind: 'posix-fd', pid: process.pid, fd, deviceUuid: device.uuid };
  }

  /** Exports the pool's descriptor once (an IPC-enabled pool of this process only), as allocationHandle does; it stays open until the pool is destroyed. */
  exportDescriptor(): void {
    if (!this.ipcEnabled || this.imported) return;
    this.#exported.fd ??= exportPoolDescriptor(this.handle);
  }

  /** Destroys the pool (once; later calls do nothing). */
  close(): void {
    this.#owned.close();
  }
}
