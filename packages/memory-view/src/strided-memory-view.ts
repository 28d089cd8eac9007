import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, DLPACK_EXCHANGE_API } from './protocol-keys.js';
import { DLPackFlags, type CudaArrayInterface, type DLPackRequest, type DLPackTensor } from './protocols.js';
import { deviceTypeName, isCudaAccessible, type Device } from './device.js';
import { type DType, dtype as toDType, type DTypeLike } from './dtype.js';
import { ExporterClosedError, InvalidLayoutError, ReadOnlyViewError, UnsupportedDeviceError } from './errors.js';
import { checkInBuffer, isCContiguous, isFContiguous, sizeOf } from './layout.js';
import { Lease } from './lease.js';
import { NO_SYNC } from './stream.js';
import type { AnyTypedArray } from './typed-arrays.js';
import { bufferByteLength, isDetached } from './host-buffer.js';
import { canViewHostMemoryAtAddress, hostMemoryAtAddress } from './host-memory-at-address.js';
import {
  CHECKED_VIEW_INIT,
  checkViewInit,
  storedItemsize,
  type CheckedViewInit,
  type StridedMemoryViewInit,
} from './view-init.js';
import { BUFFER_VIEW_OPTIONS, checkViewOptions, REINTERPRET_OPTIONS, VIEW_OPTIONS } from './view-option-error.js';
import type { BufferViewOptions, PointerViewOptions, SliceSpec, ViewOptions } from './view-options.js';
import { reshapedLayout, retypedLayout, slicedLayout } from './derived-layout.js';
import { aliasingTypedArray, compactCopy, copyInto } from './host-access.js';
import { cudaArrayInterfaceOf, exportDLPack } from './protocol-export.js';
import { resolveDevice } from './resolve-device.js';
import { viewWithAdapter } from './adapters/registry.js';
import { viewConstructors } from './view-constructors.js';
import type { ArrowVectorLike, NdarrayLike, StdlibNdarrayLike } from './adapters/host-arrays.js';

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

function describeStream(s: bigint | undefined): string {
  return s === undefined ? 'none' : s === NO_SYNC ? 'no sync' : `0x${s.toString(16)}`;
}

/**
 * A view of dense strided memory: the one place where array interop is done.
 * Device memory is a `bigint` address ({@link ptr}); host memory that JS owns
 * is an `ArrayBuffer`/`SharedArrayBuffer` ({@link buffer}) with a byte offset.
 * Strides are in elements and may be negative. The exporting object is kept
 * alive while the view lives; a producer's deleter runs exactly once, on
 * {@link close} or when the view and every view derived from it are collected.
 *
 * A view implements the protocols itself (`Symbol.for('dlpack')`,
 * `Symbol.for('dlpack.device')`, `Symbol.for('cuda.array_interface')`), so it
 * passes on to any consumer.
 */
export class StridedMemoryView {
  /** Set by the constructor: an object that merely has this prototype is not a view. */
  readonly #made: boolean;
  /** Pinned or managed memory at {@link ptr} as the driver hook viewed it: held weakly, as the buffer holds this view. */
  #hostBuffer: WeakRef<ArrayBuffer> | undefined;
  /** Bytes from the start of that buffer to element 0. */
  #hostOffset = 0;
  /** The CUDA array interface answer, made once. */
  #cudaArrayInterface: CudaArrayInterface | undefined;

  /** Address of element 0 as a `bigint` (device memory, or host memory JS does not own); undefined for JS-owned host memory. */
  readonly ptr: bigint | undefined;
  /** The buffer that holds host memory that JS owns; undefined for device memory. */
  readonly buffer: ArrayBufferLike | undefined;
  /** Bytes from the start of {@link buffer} to element 0 (0 when there is no buffer). */
  readonly byteOffset: number;
  /** Extents, outermost first. */
  readonly shape: readonly number[];
  /** Strides in elements, one per dimension; negative where the producer said so. */
  readonly strides: readonly number[];
  /** The element type. */
  readonly dtype: DType;
  /** @internal where the memory lives; undefined until resolved (CUDA array interface). */
  _device: Device | undefined;
  /** {@link DLPackFlags} bits: read-only, copied, sub-byte padded. */
  readonly flags: number;
  /** The object that exported the memory, kept alive with the view. */
  readonly exporter: unknown;
  /**
   * The stream on which the data is ready to use: the consumer stream that
   * the view was made for, or undefined where no ordering is known (host
   * memory, or `stream: -1`).
   */
  readonly stream: bigint | undefined;
  /** @internal the producer's tensor or interface object, held while the view lives. */
  readonly _source: unknown;
  /** @internal shared by a family of views: the producer's deleter and the closed flag. */
  _lease: Lease | undefined;

  /** Whether `value` is a view made by this class (not an object that only has its prototype). */
  static isView(value: unknown): value is StridedMemoryView {
    return value !== null && typeof value === 'object' && #made in value;
  }

  /**
   * A view of memory described field by field (see
   * {@link StridedMemoryViewInit}): every field is checked, and a layout that
   * leaves its buffer or the address space is refused with a named error. To
   * view an array object, use the `from*` constructors ({@link fromAny}).
   *
   * ```ts
   * const view = new StridedMemoryView({ ptr, shape: [rows, cols], dtype: 'float32', device: { type: DLDeviceType.CUDA, id: 0 }, exporter: allocation });
   * ```
   */
  constructor(init: StridedMemoryViewInit);
  /** @internal this package's own factories, whose init is checked already. */
  constructor(init: CheckedViewInit, checked: typeof CHECKED_VIEW_INIT);
  constructor(init: StridedMemoryViewInit | CheckedViewInit, checked?: typeof CHECKED_VIEW_INIT) {
    const i =
      checked === CHECKED_VIEW_INIT
        ? (init as CheckedViewInit)
        : checkViewInit(init as StridedMemoryViewInit, 'new StridedMemoryView');
    this.#made = true;
    this.ptr = i.ptr;
    this.buffer = i.buffer;
    this.byteOffset = i.byteOffset;
    // A view's layout cannot be changed through the arrays it hands out.
    this.shape = Object.freeze(i.shape);
    this.strides = Object.freeze(i.strides);
    this.dtype = i.dtype;
    this._device = i.device;
    this.flags = i.flags;
    this.exporter = i.exporter;
    this.stream = i.stream;
    this._source = i.source;
    this._lease = i.lease;
  }

  /**
   * `Symbol.for('dlpack.exchange_api')`: an External to memory-view's C
   * `DLPackExchangeAPI` table. Present once `@cuda-js/memory-view/native` is
   * imported (the main entry loads no native code).
   */
  declare readonly [DLPACK_EXCHANGE_API]?: () => object;

  // ---- constructors ----------------------------------------------------------

  /**
   * A view of an object that implements DLPack (`Symbol.for('dlpack')` and
   * `Symbol.for('dlpack.device')`). The consumer's stream is passed to the
   * producer, which makes the data safe to use on it; `-1` asks for no
   * synchronization. CUDA memory needs a stream ({@link StreamRequiredError}).
   */
  static fromDLPack(obj: unknown, options?: ViewOptions): StridedMemoryView {
    return viewConstructors().fromDLPack(
      obj,
      checkViewOptions<ViewOptions>('StridedMemoryView.fromDLPack', options, VIEW_OPTIONS),
    );
  }

  /**
   * A view of an object that implements the CUDA array interface v3
   * (`Symbol.for('cuda.array_interface')`). When the producer names a stream,
   * the consumer's stream is made to wait for it (through the registered
   * {@link DriverHooks.waitStream}) unless the consumer passes `-1`.
   */
  static fromCudaArrayInterface(obj: unknown, options?: ViewOptions): StridedMemoryView {
    return viewConstructors().fromCudaArrayInterface(
      obj,
      checkViewOptions<ViewOptions>('StridedMemoryView.fromCudaArrayInterface', options, VIEW_OPTIONS),
    );
  }

  /**
   * A view of anything viewable, tried in this order: a view (returned as is,
   * ordered on the new stream), DLPack, the CUDA array interface, the native
   * exchange API (once `@cuda-js/memory-view/native` is loaded), then host
   * memory: typed arrays, DataView, ArrayBuffer, SharedArrayBuffer, Node
   * Buffer, and the arrays of the host adapters that were imported (scijs
   * ndarray, stdlib ndarray, Apache Arrow vectors; see
   * {@link AdapterNotImportedError}).
   */
  static fromAny(obj: unknown, options?: ViewOptions): StridedMemoryView {
    return viewConstructors().fromAny(
      obj,
      options === undefined
        ? undefined
        : checkViewOptions<ViewOptions>('StridedMemoryView.fromAny', options, VIEW_OPTIONS),
    );
  }

  /**
   * A view of host memory in an `ArrayBuffer`, a `SharedArrayBuffer` or a typed
   * array / DataView (whose own offset is added), as `dtype` with `shape` and
   * `strides`. Zero-copy; a layout that leaves the buffer is refused with
   * {@link OutOfBoundsError}.
   */
  static fromBuffer(source: ArrayBufferLike | ArrayBufferView, options: BufferViewOptions = {}): StridedMemoryView {
    return viewConstructors().fromBuffer(
      source,
      checkViewOptions<BufferViewOptions>('StridedMemoryView.fromBuffer', options, BUFFER_VIEW_OPTIONS, true),
    );
  }

  /**
   * A view of memory at a `bigint` address: device memory (the default device
   * is CUDA 0), pinned or managed memory. Nothing is checked against an
   * allocation: the caller vouches for the layout. `release` runs exactly once
   * when the view family is closed or collected.
   */
  static fromPointer(ptr: bigint, options: PointerViewOptions): StridedMemoryView {
    return viewConstructors().fromPointer(ptr, options);
  }

  /** A zero-copy view of a typed array, a DataView or a Node Buffer (a DataView is seen as bytes). */
  static fromTypedArray(array: ArrayBufferView): StridedMemoryView {
    return viewConstructors().fromTypedArray(array);
  }

  /**
   * A zero-copy view of a scijs `ndarray` over a typed array (its `stride` and
   * `offset` are honored). Needs `import '@cuda-js/memory-view/adapters/ndarray'`
   * ({@link AdapterNotImportedError} otherwise).
   */
  static fromNdarray(array: NdarrayLike): StridedMemoryView {
    return viewWithAdapter('ndarray', array, 'fromNdarray');
  }

  /**
   * A zero-copy view of a stdlib ndarray (`@stdlib/ndarray`), read-only where
   * the ndarray is. Needs `import '@cuda-js/memory-view/adapters/stdlib-ndarray'`
   * ({@link AdapterNotImportedError} otherwise).
   */
  static fromStdlibNdarray(array: StdlibNdarrayLike): StridedMemoryView {
    return viewWithAdapter('stdlib-ndarray', array, 'fromStdlibNdarray');
  }

  /**
   * A view of an Apache Arrow vector: numeric types zero-copy and read-only
   * (Arrow data is immutable), fixed-size lists of numbers as 2-D. Vectors of
   * several chunks and booleans (bit-packed in Arrow) are copied once, flagged
   * {@link copied}. Nulls are refused. Needs
   * `import '@cuda-js/memory-view/adapters/arrow'` ({@link AdapterNotImportedError} otherwise).
   */
  static fromArrow(vector: ArrowVectorLike): StridedMemoryView {
    return viewWithAdapter('arrow', vector, 'fromArrow');
  }

  // ---- properties ------------------------------------------------------------

  /** Where the memory lives: a `DLDeviceType` code and a device ordinal. */
  get device(): Device {
    const known = this._device;
    if (known !== undefined) return known;
    const resolved = resolveDevice(this.exporter, this.ptr);
    this._device = resolved;
    return resolved;
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }

  /** Number of elements. */
  get size(): number {
    return sizeOf(this.shape);
  }

  /** Bytes per element as stored (whole bytes for padded sub-byte types). */
  get itemsize(): number {
    return storedItemsize(this.dtype, this.flags);
  }

  /** Bytes that the elements take (as if compact). */
  get nbytes(): number {
    return Math.ceil(this.size * this.itemsize);
  }

  /** Whether writing through this view is refused. */
  get readonly(): boolean {
    return (this.flags & DLPackFlags.READ_ONLY) !== 0;
  }

  /** Whether the producer made a copy for this view (DLPack's IS_COPIED). */
  get copied(): boolean {
    return (this.flags & DLPackFlags.IS_COPIED) !== 0;
  }

  /** Whether the layout is compact row-major. */
  get isCContiguous(): boolean {
    return isCContiguous(this.shape, this.strides);
  }

  /** Whether the layout is compact column-major. */
  get isFContiguous(): boolean {
    return isFContiguous(this.shape, this.strides);
  }

  /** Whether a CUDA kernel can read the memory (device, pinned or managed memory). */
  get isDeviceAccessible(): boolean {
    // Unresolved only for the CUDA array interface, which describes device-accessible memory.
    const d = this._device;
    return d === undefined || isCudaAccessible(d.type);
  }

  /**
   * Whether the memory is in a JS buffer ({@link buffer}). Pinned and managed
   * memory at an address (`CUDAHost`, `CUDAManaged`) is not, yet
   * {@link typedArray}, {@link toTypedArray} and {@link copyFrom} read it
   * zero-copy once a driver hook is registered (see {@link isHostReadable}).
   */
  get isHostAccessible(): boolean {
    return this.buffer !== undefined;
  }

  /**
   * Whether JS can read the elements here: a host buffer, or pinned or
   * managed memory at an address with the `hostBuffer` driver hook registered
   * (`@cuda-js/core` registers it).
   */
  get isHostReadable(): boolean {
    if (this.buffer !== undefined) return true;
    if (this.ptr === undefined) return false;
    let type: number;
    try {
      type = this.device.type;
    } catch {
      return false; // a CUDA array interface view whose device no hook can tell
    }
    return canViewHostMemoryAtAddress(type);
  }

  /** Whether {@link close} was called on this view or on one of its family. */
  get closed(): boolean {
    return this._lease?.closed === true;
  }

  // ---- lifetime --------------------------------------------------------------

  /**
   * Releases what the view holds: the producer's deleter runs now (or, while
   * DLPack exports of this family are out, when the last is given back). Every
   * view of the same family is closed with it. Safe to call twice.
   */
  close(): void {
    (this._lease ??= new Lease()).close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** @internal */
  _family(): Lease {
    return (this._lease ??= new Lease());
  }

  /** @internal throws {@link ExporterClosedError} once the family is closed or the buffer detached. */
  _checkOpen(action: string): void {
    if (this._lease?.closed) throw new ExporterClosedError(`cannot ${action}: the view was closed`);
    if (this.buffer !== undefined && this.size > 0 && isDetached(this.buffer))
      throw new ExporterClosedError(`cannot ${action}: its buffer was detached`);
  }

  /**
   * Returns this view, or throws {@link ReadOnlyViewError} when it is read-only:
   * for APIs that are about to write through it.
   */
  requireWritable(operation = 'write through this view'): this {
    if (this.flags & DLPackFlags.READ_ONLY) throw new ReadOnlyViewError(`cannot ${operation}: the view is read-only`);
    return this;
  }

  // ---- derived views ---------------------------------------------------------

  private derive(
    ptrShiftBytes: number,
    shape: readonly number[],
    strides: readonly number[],
    t: DType,
  ): StridedMemoryView {
    this._checkOpen('derive a view');
    const lease = this._family();
    const ptr = this.ptr === undefined ? undefined : ptrShiftBytes === 0 ? this.ptr : this.ptr + BigInt(ptrShiftBytes);
    const byteOffset = this.buffer === undefined ? 0 : this.byteOffset + ptrShiftBytes;
    if (this.buffer !== undefined)
      checkInBuffer(byteOffset, bufferByteLength(this.buffer), shape, strides, this.itemsizeFor(t), 'view');
    return new StridedMemoryView(
      {
        ptr,
        buffer: this.buffer,
        byteOffset,
        shape,
        strides,
        dtype: t,
        device: this._device,
        flags: this.flags,
        exporter: this.exporter,
        stream: this.stream,
        source: this._source,
        lease,
      },
      CHECKED_VIEW_INIT,
    );
  }

  private itemsizeFor(t: DType): number {
    return storedItemsize(t, this.flags);
  }

  /**
   * The same memory with another element type and/or shape, where that needs
   * no copy. A new dtype of another size re-scales the last dimension, which
   * must be contiguous (as numpy's `view`); a new shape needs a C-contiguous
   * view (one extent may be `-1`, inferred). Otherwise {@link InvalidLayoutError}.
   */
  view(options: {
    readonly shape?: readonly number[] | undefined;
    readonly dtype?: DTypeLike | undefined;
  }): StridedMemoryView {
    // the values checked, each read once: later reads are of this copy
    options = checkViewOptions<typeof options>('view.view', options, REINTERPRET_OPTIONS);
    let shape: readonly number[] = this.shape;
    let strides: readonly number[] = this.strides;
    let t = this.dtype;
    const givenDType = options.dtype;
    if (givenDType !== undefined) {
      const next = toDType(givenDType);
      if (next !== t) {
        [shape, strides] = retypedLayout(
          shape,
          strides,
          { name: t.name, itemsize: this.itemsize },
          { name: next.name, itemsize: this.itemsizeFor(next) },
        );
        t = next;
      }
    }
    const givenShape = options.shape;
    if (givenShape !== undefined) [shape, strides] = reshapedLayout(shape, strides, givenShape);
    return this.derive(0, shape, strides, t);
  }

  /**
   * Slices the leading dimensions, one {@link SliceSpec} per dimension from
   * the first: an index drops its dimension, `[start, stop, step]` keeps it
   * (negative indices count from the end, a negative step walks backwards and
   * gives a negative stride), `null` keeps it whole. Dimensions after the
   * given specs are kept whole.
   */
  slice(...specs: SliceSpec[]): StridedMemoryView {
    const { shiftElements, shape, strides } = slicedLayout(this.shape, this.strides, specs);
    const shiftBytes = shiftElements * this.itemsize;
    if (!Number.isInteger(shiftBytes))
      throw new InvalidLayoutError(
        'slice: the first element would not start on a byte boundary (packed sub-byte type)',
      );
    return this.derive(shiftBytes, shape, strides, this.dtype);
  }

  // ---- host access -------------------------------------------------------------

  /** @internal The buffer that holds the elements and element 0's byte offset in it: the JS buffer, or pinned or managed memory through the driver hook. */
  _hostMemory(action: string): { readonly buffer: ArrayBufferLike; readonly byteOffset: number } {
    this._checkOpen(action);
    const buffer = this.buffer;
    if (buffer !== undefined) {
      // A resizable buffer may have shrunk since the view was made.
      checkInBuffer(this.byteOffset, bufferByteLength(buffer), this.shape, this.strides, this.itemsize, action);
      return { buffer, byteOffset: this.byteOffset };
    }
    const ptr = this.ptr;
    const device = this.device;
    if (ptr === undefined)
      throw new UnsupportedDeviceError(
        `cannot ${action}: the memory is on ${deviceTypeName(device.type)}:${device.id}, not in a JS buffer; copy it to the host first`,
      );
    const known = this.#hostBuffer?.deref();
    if (known !== undefined) return { buffer: known, byteOffset: this.#hostOffset };
    const host = hostMemoryAtAddress(
      ptr,
      device.type,
      device.id,
      this.shape,
      this.strides,
      this.itemsize,
      this.exporter,
      this,
      this._family(),
      action,
    );
    this.#hostBuffer = new WeakRef(host.buffer);
    this.#hostOffset = host.byteOffset;
    return host;
  }

  /**
   * A typed array that aliases the memory of a C-contiguous host view
   * (complex and vector types give 2 or `lanes` entries per element; bfloat16,
   * float8 and bool are read as their bits). `'write'` (the default) refuses a
   * read-only view with {@link ReadOnlyViewError}; pass `'read'` to promise
   * that you only read.
   */
  typedArray(access: 'read' | 'write' = 'write'): AnyTypedArray {
    return aliasingTypedArray(this, access);
  }

  /** A compact copy of the elements in C order, as a new typed array (works for any host view, read-only or strided). */
  toTypedArray(): AnyTypedArray {
    return compactCopy(this);
  }

  /**
   * Copies the elements of `source` (anything {@link fromAny} views on the
   * host, of the same dtype and shape, extents of 1 aside) into this view, element by element,
   * honoring both layouts. Refuses a read-only view ({@link ReadOnlyViewError}).
   */
  copyFrom(source: unknown): this {
    copyInto(this, () => (StridedMemoryView.isView(source) ? source : viewConstructors().fromAny(source, undefined)));
    return this;
  }

  // ---- protocols -------------------------------------------------------------

  /** `Symbol.for('dlpack.device')`: `[deviceType, deviceId]`. */
  [DLPACK_DEVICE](): readonly [number, number] {
    const d = this.device;
    return [d.type, d.id];
  }

  /**
   * `Symbol.for('dlpack')`: this view as a DLPack 1.3 tensor. The tensor's
   * deleter gives the export back; the view's memory stays alive (and a
   * {@link close} waits) until then, or until the tensor is collected.
   * A copy is made only for host memory (`copy: true`, or `dlDevice` CPU).
   */
  [DLPACK](request?: DLPackRequest): DLPackTensor {
    return exportDLPack(this, request);
  }

  /**
   * `Symbol.for('cuda.array_interface')`: the CUDA array interface v3 of a
   * view of device-accessible memory (the same frozen object on each call).
   * Host views refuse it ({@link UnsupportedDeviceError}).
   */
  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface {
    this._checkOpen('export through the CUDA array interface');
    return (this.#cudaArrayInterface ??= cudaArrayInterfaceOf(this));
  }

  toString(): string {
    const d = this._device;
    const where = d === undefined ? 'CUDA (device not yet resolved)' : `${deviceTypeName(d.type)}:${d.id}`;
    const at = this.buffer !== undefined ? `buffer+${this.byteOffset}` : `0x${(this.ptr ?? 0n).toString(16)}`;
    return (
      `StridedMemoryView(${this.dtype.name} [${this.shape.join(', ')}] strides [${this.strides.join(', ')}] on ${where} at ${at}` +
      `${this.readonly ? ', read-only' : ''}${this.copied ? ', copied' : ''}, stream ${describeStream(this.stream)}${this.closed ? ', closed' : ''})`
    );
  }

  [INSPECT](): string {
    return this.toString();
  }
}
