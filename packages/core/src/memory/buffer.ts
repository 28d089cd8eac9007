import { driver, hostArrayBuffer, HostViewError, type CUdeviceptr, type CUstream } from '@cuda-js/bindings';
import { brandHandle, OwnedHandle } from '@cuda-js/bindings/runtime';
import {
  DLDeviceType,
  DLPACK,
  DLPACK_DEVICE,
  DLPACK_VERSION,
  NO_SYNC,
  StridedMemoryView,
  type AnyTypedArray,
  type DLPackExporter,
  type DLPackRequest,
  type DLPackTensor,
  type DTypeLike,
} from '@cuda-js/memory-view';
import {
  checkBlockingWait,
  orderStreams,
  pendingHostFunctions,
  streamHandle,
  type StreamArgument,
} from '@cuda-js/streams';
import type { Device } from '../device/device.js';
import { checkCoreOptions, FILL_OPTIONS, STREAM_OPTIONS } from '../core-options.js';
import { CopyError, MemoryArgumentError } from '../errors.js';
import { exportIpcBuffer, importIpcPointer, type IpcBufferDescriptor } from './ipc/ipc-buffer-descriptor.js';
import type { DeviceMemoryResource, MemoryResource } from './memory-resources.js';
import { HOST_VIEW } from '../context/driver-hooks.js';
import { copyBetweenBuffers, enterBufferDevice } from './peer-copy.js';

/** Host memory that a Buffer copies to or from. */
export type HostBytes = ArrayBufferView | ArrayBuffer;

function hostByteLength(host: HostBytes): number {
  return host.byteLength;
}

/**
 * A block of memory from a MemoryResource: device memory, pinned or managed.
 * Closing gives it back (stream-ordered for pool memory); a forgotten Buffer
 * is given back when it is collected.
 *
 * Pinned and managed memory can be viewed from JS zero-copy
 * ({@link asArrayBuffer}, {@link typedArray}, and `typedArray()` of a
 * StridedMemoryView of the buffer). Such a view keeps the memory alive: a
 * `close()` while one is reachable closes the Buffer at once but defers the
 * release until every view has been collected.
 */
export class Buffer implements Disposable, DLPackExporter {
  /** The address, released once: by close() (on the stream it names), or when collected (off the JS thread where the resource can). */
  readonly #owned: OwnedHandle<CUdeviceptr>;
  #stream: bigint;
  /**
   * Once a host view was made: the object that every host view's ArrayBuffer
   * references (natively), and this Buffer until close. The release then waits
   * for its collection instead of the Buffer's.
   */
  #keeper: object | undefined;
  /** The host view, while it lives (held weakly: it references the keeper, not this Buffer). */
  #hostView: WeakRef<ArrayBuffer> | undefined;

  /** @internal Buffers come from MemoryResource.allocate or Device.allocate. */
  constructor(
    ptr: bigint,
    /** Size in bytes. */
    readonly size: number,
    readonly memoryResource: MemoryResource,
    /** The stream the allocation was ordered on; the default for close(). */
    stream: bigint,
  ) {
    this.#stream = stream;
    // A forgotten buffer's release must not wait for the device on the event loop: resources whose release can
    // (pinned, managed) queue it on the bindings' release thread.
    const inBackground = memoryResource.deallocateInBackground?.bind(memoryResource);
    const deallocate = (h: CUdeviceptr): void => memoryResource.deallocate(h, size, stream);
    this.#owned = new OwnedHandle(
      brandHandle<CUdeviceptr>(ptr),
      this,
      { atClose: deallocate, whenCollected: inBackground ? (h) => inBackground(h, size, stream) : deallocate },
      'Buffer',
    );
  }

  /** The address (CUdeviceptr; for pinned memory also the host address). */
  get ptr(): CUdeviceptr {
    return this.#owned.handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** The stream the allocation was ordered on: the default stream of copies, fills, prefetches and close(). */
  get allocationStream(): bigint {
    return this.#stream;
  }

  get device(): Device | undefined {
    return this.memoryResource.device;
  }

  get isDeviceAccessible(): boolean {
    return this.memoryResource.isDeviceAccessible;
  }

  get isHostAccessible(): boolean {
    return this.memoryResource.isHostAccessible;
  }

  /**
   * A zero-copy `ArrayBuffer` over the buffer's bytes, for pinned and managed
   * memory (the driver is asked whether the memory is host-accessible: device
   * memory is a `HostViewError`). The same ArrayBuffer comes back while it
   * lives. It keeps the memory alive: {@link close} while it is reachable
   * closes this Buffer but gives the memory back only once the ArrayBuffer
   * (and every typed array of it) has been collected. Reads and writes are
   * not ordered with the device: synchronize the stream that wrote it first.
   * On a device without `concurrentManagedAccess`, touching managed memory
   * while a kernel runs faults, as it does in C.
   */
  asArrayBuffer(): ArrayBuffer {
    const ptr = this.ptr;
    if (!this.memoryResource.isHostAccessible) {
      throw new HostViewError(
        'Buffer.asArrayBuffer',
        `the buffer is device memory (${this.memoryResource.constructor.name}), which the host cannot read through an address; copy it to the host, or allocate pinned (PinnedMemoryResource) or managed (device.allocateManaged) memory`,
      );
    }
    const known = this.#hostView?.deref();
    if (known !== undefined) return known;
    if (this.size === 0) return new ArrayBuffer(0); // no memory to view, nothing to keep alive
    if (this.#keeper === undefined) {
      // From now on the memory goes back when the keeper is collected: after this Buffer (or its close()) and every view.
      const keeper = {};
      this.#owned.releaseWhenCollected(keeper);
      this.#keeper = keeper;
    }
    const view = hostArrayBuffer(ptr, this.size, this.#keeper);
    this.#hostView = new WeakRef(view);
    return view;
  }

  /**
   * A zero-copy typed array over the whole buffer, of `dtype` (default
   * `uint8`; names as memory-view's: `float32`, `int64`, ...), for pinned and
   * managed memory: a view of {@link asArrayBuffer}, with its lifetime rules.
   * The size must be a whole number of elements.
   */
  typedArray(dtype: DTypeLike = 'uint8'): AnyTypedArray {
    return StridedMemoryView.fromBuffer(this.asArrayBuffer(), { dtype, exporter: this }).typedArray();
  }

  /**
   * @internal memory-view's host view of bytes of this buffer (a view of a
   * view of it): the Buffer's own {@link asArrayBuffer}, so that close()
   * waits for it. A closed Buffer is a ClosedResourceError, and bytes outside
   * it a HostViewError: a view of its memory that the Buffer does not know of
   * could outlive it.
   */
  [HOST_VIEW](ptr: bigint, byteLength: number): { buffer: ArrayBuffer; byteOffset: number } {
    const base = this.ptr;
    if (ptr < base || ptr + BigInt(byteLength) > base + BigInt(this.size)) {
      throw new HostViewError(
        'Buffer host view',
        `bytes [0x${ptr.toString(16)}, +${byteLength}) are outside the Buffer at 0x${base.toString(16)} (${this.size} bytes)`,
      );
    }
    return { buffer: this.asArrayBuffer(), byteOffset: Number(ptr - base) };
  }

  /** Whether a host view of this buffer is reachable now (its memory then goes back only once it is collected). */
  get hasHostView(): boolean {
    return this.#hostView?.deref() !== undefined;
  }

  /**
   * Copies this buffer into `target`: another Buffer (ordered on `stream`; a
   * peer copy, cuMemcpyPeerAsync, when the two live on different devices), or
   * host memory (a TypedArray, DataView or ArrayBuffer; the copy is complete
   * when this returns, so it is refused with `HostFunctionDeadlockError` while
   * a host function of this thread is pending on `stream`). With several
   * devices, the buffer's device (or the stream's) is made current for the
   * copy, and a stream of a device without access to the memory is a
   * `DeviceMismatchError`.
   */
  copyTo(target: Buffer | HostBytes, options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('Buffer.copyTo', options, STREAM_OPTIONS);
    const stream = options.stream === undefined ? brandHandle<CUstream>(this.#stream) : streamHandle(options.stream);
    if (target instanceof Buffer) {
      this.#checkFits(target.size, 'copyTo');
      copyBetweenBuffers(target, this, this.size, stream, this, 'Buffer.copyTo');
      return;
    }
    this.#checkFits(hostByteLength(target), 'copyTo');
    checkBlockingWait(stream, 'Buffer.copyTo');
    enterBufferDevice('Buffer.copyTo', stream, this);
    driver.cuMemcpyDtoHAsync(target, this.ptr, this.size, stream);
    driver.cuStreamSynchronize(stream);
  }

  /** Copies `source` (a Buffer, or host memory) into this buffer, ordered on `stream`, as {@link copyTo} does. */
  copyFrom(source: Buffer | HostBytes, options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('Buffer.copyFrom', options, STREAM_OPTIONS);
    const stream = options.stream === undefined ? brandHandle<CUstream>(this.#stream) : streamHandle(options.stream);
    if (source instanceof Buffer) {
      this.#checkFits(source.size, 'copyFrom');
      copyBetweenBuffers(this, source, source.size, stream, this, 'Buffer.copyFrom');
      return;
    }
    const bytes = hostByteLength(source);
    if (bytes !== this.size)
      throw new CopyError(`Buffer.copyFrom: the source has ${bytes} bytes, the buffer ${this.size}`);
    checkBlockingWait(stream, 'Buffer.copyFrom');
    enterBufferDevice('Buffer.copyFrom', stream, this);
    // pageable host memory: the driver stages it before returning, so `source` may change afterwards
    driver.cuMemcpyHtoDAsync(this.ptr, source, bytes, stream);
    driver.cuStreamSynchronize(stream);
  }

  /** Fills the buffer with a byte (`width` 1), or a 32-bit pattern (`width` 4), ordered on `stream`. */
  fill(value: number, options: { stream?: StreamArgument | undefined; width?: 1 | 4 | undefined } = {}): void {
    options = checkCoreOptions('Buffer.fill', options, FILL_OPTIONS);
    const stream = options.stream === undefined ? brandHandle<CUstream>(this.#stream) : streamHandle(options.stream);
    const width = options.width ?? 1;
    if (width === 1) {
      if (!Number.isInteger(value) || value < 0 || value > 255)
        throw new MemoryArgumentError(`Buffer.fill: a byte is 0..255, got ${value}`);
      enterBufferDevice('Buffer.fill', stream, this);
      driver.cuMemsetD8Async(this.ptr, value, this.size, stream);
    } else {
      // width 4: the options check refused any other
      if (this.size % 4 !== 0) throw new MemoryArgumentError(`Buffer.fill: size ${this.size} is not a multiple of 4`);
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
        throw new MemoryArgumentError(`Buffer.fill: a 32-bit pattern is 0..2^32-1, got ${value}`);
      enterBufferDevice('Buffer.fill', stream, this);
      driver.cuMemsetD32Async(this.ptr, value, this.size / 4, stream);
    }
  }

  #checkFits(other: number, what: string): void {
    if (other !== this.size)
      throw new CopyError(`Buffer.${what}: sizes differ (${this.size} bytes here, ${other} there)`);
  }

  /**
   * Gives the memory back, ordered on `stream` (default: the allocation's stream). Safe to call twice.
   *
   * Pool memory (DeviceMemoryResource) is freed stream-ordered and returns at
   * once; pinned and managed memory (cuMemFreeHost, cuMemFree) waits until the
   * device has finished its work, which blocks the event loop during a long
   * kernel: use {@link closeAsync} there. While a host function of this
   * thread is pending, such a release goes to the release thread instead
   * (waiting here would never end).
   *
   * While a host view ({@link asArrayBuffer}, {@link typedArray}) is
   * reachable, the buffer is closed at once and the memory goes back when the
   * last view has been collected (a release on the bindings' release thread).
   */
  close(options: { stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('Buffer.close', options, STREAM_OPTIONS);
    if (this.closed) return;
    const stream = options.stream === undefined ? brandHandle<CUstream>(this.#stream) : streamHandle(options.stream);
    const ptr = this.#takeUnlessViewed();
    if (ptr === undefined) return;
    const resource = this.memoryResource;
    if (resource.deallocateInBackground && pendingHostFunctions() > 0) {
      resource.deallocateInBackground(ptr, this.size, stream);
      return;
    }
    resource.deallocate(ptr, this.size, stream);
  }

  /**
   * At close: closes this Buffer, and either leaves the release to the
   * keeper's collection (a host view is reachable: undefined) or takes the
   * address to release now (the collection's release is cancelled).
   */
  #takeUnlessViewed(): CUdeviceptr | undefined {
    const keeper = this.#keeper;
    const live = this.hasHostView;
    this.#keeper = undefined;
    this.#hostView = undefined;
    if (keeper !== undefined && live) {
      this.#owned.closeWhenCollected();
      return undefined;
    }
    return this.#owned.take();
  }

  /**
   * The non-blocking form of {@link close}: the buffer is closed at once, and
   * the memory goes back off the JS thread (the bindings' release thread) for
   * resources whose release may wait for the device; settles when it is back.
   * Safe to call twice, and after close(). While a host view is reachable it
   * settles at once, and the memory goes back once the views are collected.
   */
  closeAsync(options: { stream?: StreamArgument | undefined } = {}): Promise<void> {
    options = checkCoreOptions('Buffer.closeAsync', options, STREAM_OPTIONS);
    if (this.closed) return Promise.resolve();
    try {
      const stream = options.stream === undefined ? brandHandle<CUstream>(this.#stream) : streamHandle(options.stream);
      const resource = this.memoryResource;
      const ptr = this.#takeUnlessViewed();
      if (ptr === undefined) return Promise.resolve();
      if (resource.deallocateAsync) return resource.deallocateAsync(ptr, this.size, stream);
      resource.deallocate(ptr, this.size, stream);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * A plain, JSON-serializable descriptor of this buffer (cuMemPoolExportPointer)
   * for another process that imported its pool ({@link Buffer.fromIpcDescriptor}).
   * Only for buffers of an IPC-enabled DeviceMemoryResource (an `IpcError`
   * otherwise). The importer may use the memory only once its allocation is
   * complete here: record an interprocess event after it, or synchronize. Free
   * it here only after every importer has closed its Buffer and that free has
   * completed.
   */
  ipcDescriptor(): IpcBufferDescriptor {
    return exportIpcBuffer(this);
  }

  /**
   * The buffer of another process's {@link ipcDescriptor}, in `resource`: a
   * DeviceMemoryResource imported from that process's pool
   * (`DeviceMemoryResource.fromAllocationHandle`). The descriptor is checked
   * strictly first (an `IpcError`). `stream` (default: the legacy default
   * stream) is the default of the buffer's copies and close(); close() frees
   * the import (cuMemFreeAsync), which must complete before the exporter
   * frees the memory.
   */
  static fromIpcDescriptor(
    resource: DeviceMemoryResource,
    descriptor: IpcBufferDescriptor,
    options: { stream?: StreamArgument | undefined } = {},
  ): Buffer {
    options = checkCoreOptions('Buffer.fromIpcDescriptor', options, STREAM_OPTIONS);
    const imported = importIpcPointer(resource, descriptor, options.stream);
    return new Buffer(imported.ptr, imported.size, resource, imported.stream);
  }

  /** `[deviceType, deviceId]` of DLPack: CUDA device, pinned host (CUDAHost) or managed memory. */
  [DLPACK_DEVICE](): readonly [number, number] {
    const resource = this.memoryResource;
    if (!resource.device) return [DLDeviceType.CUDAHost, 0];
    return [resource.isHostAccessible ? DLDeviceType.CUDAManaged : DLDeviceType.CUDA, resource.device.ordinal];
  }

  /**
   * Exports the bytes as a 1-D uint8 DLPack tensor (view it with another dtype
   * through StridedMemoryView). The tensor keeps this Buffer alive until its
   * deleter runs. The consumer's stream is ordered after the allocation's.
   */
  [DLPACK](request: DLPackRequest = {}): DLPackTensor {
    const ptr = this.ptr;
    if (request.copy === true)
      throw new CopyError('Buffer: DLPack export with copy: true is not supported; copy into another Buffer first');
    const [type, id] = this[DLPACK_DEVICE]();
    if (request.dlDevice && (request.dlDevice[0] !== type || request.dlDevice[1] !== id)) {
      throw new CopyError(
        `Buffer: DLPack export to device [${request.dlDevice.join(', ')}] would need a copy; the buffer lives on [${type}, ${id}]`,
      );
    }
    const consumer = request.stream;
    if (consumer !== undefined && consumer !== NO_SYNC && this.memoryResource.device)
      orderStreams(this.#stream === 0n ? 1n : this.#stream, consumer);
    return {
      version: DLPACK_VERSION,
      flags: 0,
      device: { type, id },
      data: ptr,
      dtype: { code: 1, bits: 8, lanes: 1 },
      shape: [this.size],
      strides: [1],
      deleter: () => undefined,
      managerContext: this,
    };
  }

  toString(): string {
    return `Buffer(${this.size} bytes${this.closed ? ', closed' : ` at 0x${this.ptr.toString(16)}`})`;
  }
}
