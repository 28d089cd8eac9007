import { driver, releaseAsync, releaseInBackground } from '@cuda-js/bindings';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { Buffer } from './buffer.js';
import type { Device } from './device.js';
import { ManagedBuffer } from './managed-buffer.js';

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
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`${what}: size must be a non-negative safe integer, got ${String(size)}`);
}

/** Stream-ordered device memory from a pool (the device's default pool unless given): cuMemAllocFromPoolAsync. */
export class DeviceMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  #pool: bigint | undefined;

  constructor(
    readonly device: Device,
    options: { pool?: bigint } = {},
  ) {
    this.#pool = options.pool;
  }

  /** The CUmemoryPool handle. */
  get pool(): bigint {
    this.#pool ??= driver.cuDeviceGetDefaultMemPool(this.device.handle) as bigint;
    return this.#pool;
  }

  allocate(size: number, options: { stream?: StreamArgument } = {}): Buffer {
    checkSize(size, 'DeviceMemoryResource.allocate');
    this.device.ensureCurrent();
    const stream = streamHandle(options.stream ?? 0n);
    // a zero-byte request still gets a distinct allocation, as the driver needs size > 0
    const ptr = driver.cuMemAllocFromPoolAsync(Math.max(size, 1), this.pool as never, stream as never) as bigint;
    return new Buffer(ptr, size, this, stream);
  }

  deallocate(ptr: bigint, _size: number, stream: bigint): void {
    driver.cuMemFreeAsync(ptr as never, stream as never);
  }
}

/** Page-locked host memory, mapped into the device's address space (cuMemHostAlloc, portable + device-mapped). */
export class PinnedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;
  readonly device = undefined;

  allocate(size: number): Buffer {
    checkSize(size, 'PinnedMemoryResource.allocate');
    const CU_MEMHOSTALLOC_PORTABLE = 0x1;
    const CU_MEMHOSTALLOC_DEVICEMAP = 0x2;
    const ptr = driver.cuMemHostAlloc(Math.max(size, 1), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) as bigint;
    return new Buffer(ptr, size, this, 0n);
  }

  /** cuMemFreeHost, which waits for the device to finish its work. */
  deallocate(ptr: bigint): void {
    driver.cuMemFreeHost(ptr as never);
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

/** Page-locked host memory the legacy way (cuMemAllocHost). */
export class LegacyPinnedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;
  readonly device = undefined;

  allocate(size: number): Buffer {
    checkSize(size, 'LegacyPinnedMemoryResource.allocate');
    return new Buffer(driver.cuMemAllocHost(Math.max(size, 1)) as bigint, size, this, 0n);
  }

  /** cuMemFreeHost, which waits for the device to finish its work. */
  deallocate(ptr: bigint): void {
    driver.cuMemFreeHost(ptr as never);
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

/**
 * Unified (managed) memory, migrated between host and device on demand
 * (cuMemAllocManaged, attached globally). Its buffers are {@link ManagedBuffer}s:
 * advice (read-mostly, preferred location, accessed-by), prefetch and discard.
 */
export class ManagedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;

  constructor(readonly device: Device) {}

  allocate(size: number): ManagedBuffer {
    checkSize(size, 'ManagedMemoryResource.allocate');
    this.device.ensureCurrent();
    const ptr = driver.cuMemAllocManaged(Math.max(size, 1), driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL) as bigint;
    return new ManagedBuffer(ptr, size, this, 0n);
  }

  /** cuMemFree, which waits for the device to finish its work. */
  deallocate(ptr: bigint): void {
    driver.cuMemFree(ptr as never);
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
