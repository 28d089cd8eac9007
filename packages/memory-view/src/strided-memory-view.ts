import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, DLPACK_EXCHANGE_API } from './protocol-keys.js';
import { DLPACK_VERSION, DLPackFlags, type CudaArrayInterface, type DLPackRequest, type DLPackTensor } from './protocols.js';
import { checkedDevice, CPU_DEVICE, DLDeviceType, deviceTypeName, isCudaAccessible, type Device } from './device.js';
import { type DType, dtype as toDType, type DTypeLike } from './dtype.js';
import { ExporterClosedError, InvalidLayoutError, OutOfBoundsError, ProtocolError, ReadOnlyViewError, UnsupportedDeviceError, UnknownDTypeError, UnsupportedExportError } from './errors.js';
import { checkAddress, checkInBuffer, compactStrides, isCContiguous, isFContiguous, readShape, readStrides, sizeOf } from './layout.js';
import { Lease } from './lease.js';
import { driverHooks, NO_SYNC, orderStreams, resolveStream, type StreamArgument } from './stream.js';
import { typedArrayFor, type AnyTypedArray } from './typed-arrays.js';
import { copyStrided } from './strided-copy.js';
import { bufferByteLength, isArrayBufferLike, isDetached, measureView } from './host-buffer.js';
import { formatValue } from './format-value.js';
import { canViewHostMemoryAtAddress, hostMemoryAtAddress } from './host-memory-at-address.js';
import { viewFromDLPack } from './from-dlpack.js';
import { viewFromCudaArrayInterface } from './from-cuda-array-interface.js';
import { viewFromAny } from './from-any.js';
import { viewFromArrayBufferView } from './adapters/typed-array.js';
import { viewFromNdarray, type NdarrayLike } from './adapters/ndarray.js';
import { viewFromStdlibNdarray, type StdlibNdarrayLike } from './adapters/stdlib-ndarray.js';
import { viewFromArrow, type ArrowVectorLike } from './adapters/arrow.js';

/** Options of the `from*` constructors. */
export interface ViewOptions {
  /** The consumer's stream (see {@link StreamArgument}); required for CUDA device memory, ignored for host memory. */
  readonly stream?: StreamArgument;
  /** `true`: the caller will write; a read-only source is refused with {@link ReadOnlyViewError}. */
  readonly writable?: boolean;
}

/** Options of {@link StridedMemoryView.fromBuffer}. */
export interface BufferViewOptions {
  /** Element type (default `uint8`). */
  readonly dtype?: DTypeLike;
  /** Extents (default: one dimension that fills the buffer from `byteOffset`). */
  readonly shape?: readonly number[];
  /** Strides in elements (default: compact row-major). */
  readonly strides?: readonly number[];
  /** Bytes from the start of the buffer (or of the typed array) to element 0. */
  readonly byteOffset?: number;
  readonly readonly?: boolean;
  /** The object to keep alive with the view (default: the buffer or typed array itself). */
  readonly exporter?: unknown;
}

/** Options of {@link StridedMemoryView.fromPointer}. */
export interface PointerViewOptions {
  readonly dtype: DTypeLike;
  readonly shape: readonly number[];
  /** Strides in elements (default: compact row-major). */
  readonly strides?: readonly number[];
  /** Where the memory lives (default: CUDA device 0). */
  readonly device?: Device;
  readonly readonly?: boolean;
  /** The object that owns the memory: kept alive while any view of it lives. */
  readonly exporter?: unknown;
  /** The stream on which the memory is ready (its last writer), if any. */
  readonly stream?: StreamArgument;
  /** Called exactly once when the view and every view derived from it are closed or collected. */
  readonly release?: () => void;
}

/** One entry of {@link StridedMemoryView.slice}: an index (drops the dimension), `[start, stop, step]` (any part may be omitted or `undefined`), or `null` (the whole dimension). */
export type SliceSpec = number | readonly [start?: number, stop?: number, step?: number] | null;

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * The most bytes that {@link StridedMemoryView.toTypedArray} and
 * {@link StridedMemoryView.copyFrom} allocate for one copy (4 GiB): a view of
 * a few bytes may claim billions of elements through zero strides.
 */
export const MAX_HOST_COPY_BYTES = 2 ** 32;

function checkCopySize(bytes: number, what: string): void {
  if (!(bytes <= MAX_HOST_COPY_BYTES)) {
    throw new OutOfBoundsError(
      `${what}: a copy of ${bytes} bytes is larger than the ${MAX_HOST_COPY_BYTES}-byte limit of host copies (a broadcast view, through zero strides, can claim more elements than its memory holds)`,
    );
  }
}

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

  /** Whether `value` is a view made by this class (not an object that only has its prototype). */
  static isView(value: unknown): value is StridedMemoryView {
    return value !== null && typeof value === 'object' && #made in value;
  }

  /**
   * @internal use the static `from*` constructors.
   */
  constructor(
    /** Address of element 0 as a `bigint` (device memory, or host memory JS does not own); undefined for JS-owned host memory. */
    readonly ptr: bigint | undefined,
    /** The buffer that holds host memory that JS owns; undefined for device memory. */
    readonly buffer: ArrayBufferLike | undefined,
    /** Bytes from the start of {@link buffer} to element 0 (0 when there is no buffer). */
    readonly byteOffset: number,
    /** Extents, outermost first. */
    readonly shape: readonly number[],
    /** Strides in elements, one per dimension; negative where the producer said so. */
    readonly strides: readonly number[],
    /** The element type. */
    readonly dtype: DType,
    /** @internal where the memory lives; undefined until resolved (CUDA array interface). */
    public _device: Device | undefined,
    /** {@link DLPackFlags} bits: read-only, copied, sub-byte padded. */
    readonly flags: number,
    /** The object that exported the memory, kept alive with the view. */
    readonly exporter: unknown,
    /**
     * The stream on which the data is ready to use: the consumer stream that
     * the view was made for, or undefined where no ordering is known (host
     * memory, or `stream: -1`).
     */
    readonly stream: bigint | undefined,
    /** @internal the producer's tensor or interface object, held while the view lives. */
    readonly _source: unknown,
    /** @internal shared by a family of views: the producer's deleter and the closed flag. */
    public _lease: Lease | undefined,
  ) {
    this.#made = true;
    // A view's layout cannot be changed through the arrays it hands out.
    Object.freeze(shape);
    Object.freeze(strides);
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
    return viewFromDLPack(obj, options);
  }

  /**
   * A view of an object that implements the CUDA array interface v3
   * (`Symbol.for('cuda.array_interface')`). When the producer names a stream,
   * the consumer's stream is made to wait for it (through the registered
   * {@link DriverHooks.waitStream}) unless the consumer passes `-1`.
   */
  static fromCudaArrayInterface(obj: unknown, options?: ViewOptions): StridedMemoryView {
    return viewFromCudaArrayInterface(obj, options);
  }

  /**
   * A view of anything viewable, tried in this order: a view (returned as is,
   * ordered on the new stream), DLPack, the CUDA array interface, the native
   * exchange API (once `@cuda-js/memory-view/native` is loaded), then the host
   * adapters (typed arrays, DataView, ArrayBuffer, SharedArrayBuffer, Node
   * Buffer, scijs ndarray, stdlib ndarray, Apache Arrow vectors).
   */
  static fromAny(obj: unknown, options?: ViewOptions): StridedMemoryView {
    return viewFromAny(obj, options);
  }

  /**
   * A view of host memory in an `ArrayBuffer`, a `SharedArrayBuffer` or a typed
   * array / DataView (whose own offset is added), as `dtype` with `shape` and
   * `strides`. Zero-copy; a layout that leaves the buffer is refused with
   * {@link OutOfBoundsError}.
   */
  static fromBuffer(source: ArrayBufferLike | ArrayBufferView, options: BufferViewOptions = {}): StridedMemoryView {
    // Measured by the engine's own getters: own properties that lie change nothing.
    const measured = measureView(source);
    let buffer: ArrayBufferLike;
    let base: number;
    let limit: number;
    if (measured !== undefined) {
      buffer = measured.buffer;
      base = measured.byteOffset;
      limit = measured.byteLength;
    } else if (isArrayBufferLike(source)) {
      buffer = source;
      base = 0;
      limit = bufferByteLength(source);
    } else {
      throw new TypeError(`fromBuffer takes an ArrayBuffer, a SharedArrayBuffer or a typed array; got ${Object.prototype.toString.call(source)}`);
    }
    if (isDetached(buffer)) throw new ExporterClosedError('fromBuffer: the buffer is detached');
    const o: BufferViewOptions = options ?? {};
    const t = toDType(o.dtype ?? 'uint8');
    const offset: unknown = o.byteOffset ?? 0;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw new InvalidLayoutError(`fromBuffer: byteOffset must be a non-negative integer, got ${formatValue(offset)}`);
    const givenShape = o.shape;
    let shape: readonly number[];
    if (givenShape === undefined) {
      const count = (limit - offset) / t.itemsize;
      if (!Number.isInteger(count) || count < 0) {
        throw new InvalidLayoutError(`fromBuffer: ${limit - offset} bytes are not a whole number of ${t.name} elements; give a shape`);
      }
      shape = [count];
    } else {
      shape = readShape(givenShape, 'fromBuffer');
    }
    const givenStrides = o.strides;
    const strides = givenStrides === undefined ? compactStrides(shape) : readStrides(givenStrides, shape, 'fromBuffer');
    checkInBuffer(offset, limit, shape, strides, t.itemsize, 'fromBuffer');
    const flags = o.readonly ? DLPackFlags.READ_ONLY : 0;
    return new StridedMemoryView(undefined, buffer, base + offset, shape, strides, t, CPU_DEVICE, flags, o.exporter ?? source, undefined, undefined, undefined);
  }

  /**
   * A view of memory at a `bigint` address: device memory (the default device
   * is CUDA 0), pinned or managed memory. Nothing is checked against an
   * allocation: the caller vouches for the layout. `release` runs exactly once
   * when the view family is closed or collected.
   */
  static fromPointer(ptr: bigint, options: PointerViewOptions): StridedMemoryView {
    if (typeof ptr !== 'bigint') throw new TypeError(`fromPointer: ptr must be a bigint address, got ${typeof ptr}`);
    if (options === null || typeof options !== 'object') throw new TypeError('fromPointer: options { dtype, shape } are required');
    const t = toDType(options.dtype);
    const shape = readShape(options.shape, 'fromPointer');
    const givenStrides = options.strides;
    const strides = givenStrides === undefined ? compactStrides(shape) : readStrides(givenStrides, shape, 'fromPointer');
    checkAddress(ptr, shape, strides, t.itemsize, 'fromPointer');
    const given = options.device;
    let device: Device = { type: DLDeviceType.CUDA, id: 0 };
    if (given !== undefined) {
      const type: unknown = given === null || typeof given !== 'object' ? undefined : given.type;
      const id: unknown = given === null || typeof given !== 'object' ? undefined : given.id;
      const checked = checkedDevice(type, id);
      if (checked === undefined)
        throw new UnsupportedDeviceError(`fromPointer: device { type: ${formatValue(type)}, id: ${formatValue(id)} } is not a DLPack device (a positive type code and a non-negative integer id)`);
      device = checked;
    }
    const stream = resolveStream(options.stream);
    const release = options.release;
    if (release !== undefined && typeof release !== 'function') throw new TypeError('fromPointer: release must be a function');
    const lease = release === undefined ? undefined : new Lease(release);
    const flags = options.readonly ? DLPackFlags.READ_ONLY : 0;
    return new StridedMemoryView(ptr, undefined, 0, shape, strides, t, device, flags, options.exporter, stream === NO_SYNC ? undefined : stream, undefined, lease);
  }

  /** A zero-copy view of a typed array, a DataView or a Node Buffer (a DataView is seen as bytes). */
  static fromTypedArray(array: ArrayBufferView): StridedMemoryView {
    return viewFromArrayBufferView(array);
  }

  /** A zero-copy view of a scijs `ndarray` over a typed array (its `stride` and `offset` are honored). */
  static fromNdarray(array: NdarrayLike): StridedMemoryView {
    return viewFromNdarray(array);
  }

  /** A zero-copy view of a stdlib ndarray (`@stdlib/ndarray`), read-only where the ndarray is. */
  static fromStdlibNdarray(array: StdlibNdarrayLike): StridedMemoryView {
    return viewFromStdlibNdarray(array);
  }

  /**
   * A view of an Apache Arrow vector: numeric types zero-copy and read-only
   * (Arrow data is immutable), fixed-size lists of numbers as 2-D. Vectors of
   * several chunks and booleans (bit-packed in Arrow) are copied once, flagged
   * {@link copied}. Nulls are refused.
   */
  static fromArrow(vector: ArrowVectorLike): StridedMemoryView {
    return viewFromArrow(vector);
  }

  // ---- properties ------------------------------------------------------------

  /** Where the memory lives: a `DLDeviceType` code and a device ordinal. */
  get device(): Device {
    const known = this._device;
    if (known !== undefined) return known;
    const resolved = resolveDevice(this);
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
    return this.flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED ? Math.ceil(this.dtype.itemsize) : this.dtype.itemsize;
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
    if (this.buffer !== undefined && this.size > 0 && isDetached(this.buffer)) throw new ExporterClosedError(`cannot ${action}: its buffer was detached`);
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

  private derive(ptrShiftBytes: number, shape: readonly number[], strides: readonly number[], t: DType): StridedMemoryView {
    this._checkOpen('derive a view');
    const lease = this._family();
    const ptr = this.ptr === undefined ? undefined : ptrShiftBytes === 0 ? this.ptr : this.ptr + BigInt(ptrShiftBytes);
    const byteOffset = this.buffer === undefined ? 0 : this.byteOffset + ptrShiftBytes;
    if (this.buffer !== undefined) checkInBuffer(byteOffset, bufferByteLength(this.buffer), shape, strides, this.itemsizeFor(t), 'view');
    return new StridedMemoryView(ptr, this.buffer, byteOffset, shape, strides, t, this._device, this.flags, this.exporter, this.stream, this._source, lease);
  }

  private itemsizeFor(t: DType): number {
    return this.flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED ? Math.ceil(t.itemsize) : t.itemsize;
  }

  /**
   * The same memory with another element type and/or shape, where that needs
   * no copy. A new dtype of another size re-scales the last dimension, which
   * must be contiguous (as numpy's `view`); a new shape needs a C-contiguous
   * view (one extent may be `-1`, inferred). Otherwise {@link InvalidLayoutError}.
   */
  view(options: { readonly shape?: readonly number[]; readonly dtype?: DTypeLike }): StridedMemoryView {
    let shape: readonly number[] = this.shape;
    let strides: readonly number[] = this.strides;
    let t = this.dtype;
    if (options.dtype !== undefined) {
      const next = toDType(options.dtype);
      if (next !== t) {
        [shape, strides] = this.retypedLayout(next);
        t = next;
      }
    }
    const givenShape = options.shape;
    if (givenShape !== undefined) {
      const n = readShapeLength(givenShape);
      const wanted: number[] = [];
      for (let i = 0; i < n; i++) wanted.push((givenShape as unknown[])[i] as number);
      const size = sizeOf(shape);
      const free = wanted.indexOf(-1);
      if (free !== -1) {
        if (wanted.indexOf(-1, free + 1) !== -1) throw new InvalidLayoutError('view: only one extent may be -1');
        const rest = sizeOf(wanted.filter((_, i) => i !== free));
        if (rest === 0 || size % rest !== 0) throw new InvalidLayoutError(`view: cannot infer the -1 extent of [${wanted.join(', ')}] for ${size} elements`);
        wanted[free] = size / rest;
      }
      readShape(wanted, 'view');
      if (sizeOf(wanted) !== size) {
        throw new InvalidLayoutError(`view: shape [${wanted.join(', ')}] holds ${sizeOf(wanted)} elements, the view has ${size}`);
      }
      if (!isCContiguous(shape, strides)) {
        throw new InvalidLayoutError(`view: a new shape needs a C-contiguous view (strides [${strides.join(', ')}] for shape [${shape.join(', ')}]); copy it first`);
      }
      shape = wanted;
      strides = compactStrides(wanted);
    }
    return this.derive(0, shape, strides, t);
  }

  private retypedLayout(next: DType): [number[], number[]] {
    const oldSize = this.itemsize;
    const newSize = this.itemsizeFor(next);
    const shape = [...this.shape];
    const strides = [...this.strides];
    if (oldSize === newSize) return [shape, strides];
    const what = `view: ${this.dtype.name} (${oldSize} bytes) as ${next.name} (${newSize} bytes)`;
    if (!Number.isInteger(oldSize) || !Number.isInteger(newSize)) throw new InvalidLayoutError(`${what}: sub-byte types change size only through DLPack`);
    const last = shape.length - 1;
    if (last < 0) throw new InvalidLayoutError(`${what}: a 0-d view cannot change its item size`);
    if (shape[last] !== 1 && strides[last] !== 1) throw new InvalidLayoutError(`${what}: the last dimension must be contiguous (its stride is ${strides[last]})`);
    const lastBytes = shape[last]! * oldSize;
    if (lastBytes % newSize !== 0) throw new InvalidLayoutError(`${what}: the last dimension holds ${lastBytes} bytes, not a multiple of ${newSize}`);
    for (let i = 0; i < last; i++) {
      const bytes = strides[i]! * oldSize;
      if (bytes % newSize !== 0) throw new InvalidLayoutError(`${what}: the stride of dimension ${i} (${bytes} bytes) is not a multiple of ${newSize}`);
      strides[i] = bytes / newSize;
    }
    shape[last] = lastBytes / newSize;
    strides[last] = 1;
    return [shape, strides];
  }

  /**
   * Slices the leading dimensions, one {@link SliceSpec} per dimension from
   * the first: an index drops its dimension, `[start, stop, step]` keeps it
   * (negative indices count from the end, a negative step walks backwards and
   * gives a negative stride), `null` keeps it whole. Dimensions after the
   * given specs are kept whole.
   */
  slice(...specs: SliceSpec[]): StridedMemoryView {
    if (specs.length > this.shape.length) throw new InvalidLayoutError(`slice: ${specs.length} specs for a ${this.shape.length}-d view`);
    let shiftElements = 0;
    const shape: number[] = [];
    const strides: number[] = [];
    for (let axis = 0; axis < this.shape.length; axis++) {
      const extent = this.shape[axis]!;
      const stride = this.strides[axis]!;
      const spec = specs[axis] ?? null;
      if (typeof spec === 'number') {
        if (!Number.isInteger(spec) || spec < -extent || spec >= extent) throw new InvalidLayoutError(`slice: index ${spec} is out of range for dimension ${axis} of extent ${extent}`);
        shiftElements += (spec < 0 ? spec + extent : spec) * stride;
        continue;
      }
      if (spec === null) {
        shape.push(extent);
        strides.push(stride);
        continue;
      }
      const step = spec[2] ?? 1;
      if (!Number.isInteger(step) || step === 0) throw new InvalidLayoutError(`slice: step ${step} of dimension ${axis} must be a non-zero integer`);
      const clamp = (v: number | undefined, fallback: number, lo: number, hi: number): number => {
        if (v === undefined) return fallback;
        if (!Number.isInteger(v)) throw new InvalidLayoutError(`slice: ${v} is not an integer index (dimension ${axis})`);
        const abs = v < 0 ? v + extent : v;
        return Math.min(Math.max(abs, lo), hi);
      };
      let start: number;
      let count: number;
      if (step > 0) {
        start = clamp(spec[0], 0, 0, extent);
        const stop = clamp(spec[1], extent, 0, extent);
        count = stop > start ? Math.ceil((stop - start) / step) : 0;
      } else {
        start = clamp(spec[0], extent - 1, -1, extent - 1);
        const stop = spec[1] === undefined ? -1 : clamp(spec[1], -1, -1, extent - 1);
        count = start > stop ? Math.ceil((start - stop) / -step) : 0;
      }
      if (count > 0) shiftElements += start * stride;
      shape.push(count);
      strides.push(stride * step);
    }
    const shiftBytes = shiftElements * this.itemsize;
    if (!Number.isInteger(shiftBytes)) throw new InvalidLayoutError('slice: the first element would not start on a byte boundary (packed sub-byte type)');
    return this.derive(shiftBytes, shape, strides, this.dtype);
  }

  // ---- host access -------------------------------------------------------------

  /** The buffer that holds the elements and element 0's byte offset in it: the JS buffer, or pinned or managed memory through the driver hook. */
  private requireHost(action: string): { readonly buffer: ArrayBufferLike; readonly byteOffset: number } {
    this._checkOpen(action);
    const buffer = this.buffer;
    if (buffer !== undefined) {
      // A resizable buffer may have shrunk since the view was made.
      checkInBuffer(this.byteOffset, bufferByteLength(buffer), this.shape, this.strides, this.itemsize, action);
      return { buffer, byteOffset: this.byteOffset };
    }
    const ptr = this.ptr;
    const device = this.device;
    if (ptr === undefined) throw new UnsupportedDeviceError(`cannot ${action}: the memory is on ${deviceTypeName(device.type)}:${device.id}, not in a JS buffer; copy it to the host first`);
    const known = this.#hostBuffer?.deref();
    if (known !== undefined) return { buffer: known, byteOffset: this.#hostOffset };
    const host = hostMemoryAtAddress(ptr, device.type, device.id, this.shape, this.strides, this.itemsize, this.exporter, this, this._family(), action);
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
    const { buffer, byteOffset } = this.requireHost('make a typed array');
    if (access === 'write') this.requireWritable('write through a typed array of this view');
    if (!this.isCContiguous) throw new InvalidLayoutError(`typedArray: the view is not C-contiguous (strides [${this.strides.join(', ')}]); use toTypedArray() for a copy`);
    const kind = typedArrayFor(this.dtype);
    if (kind === undefined) throw new UnknownDTypeError(`typedArray: ${this.dtype.name} has no typed array (packed sub-byte type)`);
    if (byteOffset % kind.ctor.BYTES_PER_ELEMENT !== 0) {
      throw new InvalidLayoutError(`typedArray: byte offset ${byteOffset} is not aligned to ${kind.ctor.BYTES_PER_ELEMENT} bytes; use toTypedArray() for a copy`);
    }
    return new kind.ctor(buffer, byteOffset, this.size * kind.perElement);
  }

  /** A compact copy of the elements in C order, as a new typed array (works for any host view, read-only or strided). */
  toTypedArray(): AnyTypedArray {
    const { buffer, byteOffset } = this.requireHost('copy to a typed array');
    const kind = typedArrayFor(this.dtype);
    if (kind === undefined) throw new UnknownDTypeError(`toTypedArray: ${this.dtype.name} has no typed array (packed sub-byte type)`);
    const itemsize = this.itemsize;
    checkCopySize(this.size * itemsize, 'toTypedArray');
    const out = new kind.ctor(this.size * kind.perElement);
    copyStrided(
      { buffer: out.buffer, byteOffset: 0, byteStrides: compactStrides(this.shape).map((s) => s * itemsize) },
      { buffer, byteOffset, byteStrides: this.strides.map((s) => s * itemsize) },
      this.shape,
      itemsize,
    );
    return out;
  }

  /**
   * Copies the elements of `source` (anything {@link fromAny} views on the
   * host, of the same dtype and shape, extents of 1 aside) into this view, element by element,
   * honoring both layouts. Refuses a read-only view ({@link ReadOnlyViewError}).
   */
  copyFrom(source: unknown): this {
    const { buffer, byteOffset } = this.requireHost('copy into this view');
    this.requireWritable('copy into this view');
    const src = StridedMemoryView.isView(source) ? source : StridedMemoryView.fromAny(source);
    const { buffer: srcBuffer, byteOffset: srcByteOffset } = src.requireHost('copy from it');
    if (src.dtype !== this.dtype) throw new InvalidLayoutError(`copyFrom: the source holds ${src.dtype.name}, this view ${this.dtype.name}; no conversion is made`);
    // Extents of 1 carry no order: [1, 3] fills [3], and [1] fills a 0-d view.
    const [dstShape, dstStrides] = squeeze(this.shape, this.strides);
    const [srcShape, srcStrides] = squeeze(src.shape, src.strides);
    if (srcShape.length !== dstShape.length || srcShape.some((e, i) => e !== dstShape[i])) {
      throw new InvalidLayoutError(`copyFrom: shape [${src.shape.join(', ')}] differs from [${this.shape.join(', ')}]`);
    }
    const itemsize = this.itemsize;
    if (!Number.isInteger(itemsize)) throw new UnknownDTypeError(`copyFrom: ${this.dtype.name} is a packed sub-byte type`);
    let from = { buffer: srcBuffer, byteOffset: srcByteOffset, byteStrides: srcStrides.map((s) => s * itemsize) };
    if (srcBuffer === buffer || this.buffer === undefined || src.buffer === undefined) {
      // The same memory (one buffer, or two buffers over pinned or managed memory that may overlap):
      // go through a compact copy so that overlap cannot corrupt.
      checkCopySize(this.size * itemsize, 'copyFrom');
      const tmp = new ArrayBuffer(Math.max(this.size * itemsize, 0));
      const compact = compactStrides(dstShape).map((s) => s * itemsize);
      copyStrided({ buffer: tmp, byteOffset: 0, byteStrides: compact }, from, dstShape, itemsize);
      from = { buffer: tmp, byteOffset: 0, byteStrides: compact };
    }
    copyStrided({ buffer, byteOffset, byteStrides: dstStrides.map((s) => s * itemsize) }, from, dstShape, itemsize);
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
    this._checkOpen('export through DLPack');
    const device = this.device;
    if (request !== undefined) {
      if (request.maxVersion !== undefined && request.maxVersion.major < 1) {
        throw new UnsupportedExportError(`the consumer reads DLPack ${request.maxVersion.major}.${request.maxVersion.minor}; this view exports DLPack 1.x only`);
      }
      const want = request.dlDevice;
      const elsewhere = want !== undefined && (want[0] !== device.type || want[1] !== device.id);
      if (request.copy === true || elsewhere) {
        if (request.copy === false) throw new UnsupportedExportError(`the consumer wants the data on device [${want!.join(', ')}] without a copy; it is on [${device.type}, ${device.id}]`);
        if (elsewhere && (want![0] !== DLDeviceType.CPU || !this.isHostReadable)) {
          throw new UnsupportedExportError(`cannot copy from ${deviceTypeName(device.type)}:${device.id} to device [${want!.join(', ')}]: memory-view copies host memory only`);
        }
        return this.copiedTensor();
      }
      if (request.stream !== undefined && isCudaAccessible(device.type)) {
        orderStreams(this.stream, request.stream, 'this view');
      }
    }
    const lease = this._family();
    lease.retain();
    let given = false;
    return {
      version: DLPACK_VERSION,
      flags: this.flags & ~DLPackFlags.IS_COPIED,
      device,
      data: this.buffer ?? this.ptr ?? 0n,
      byteOffset: this.buffer === undefined ? 0 : this.byteOffset,
      dtype: this.dtype,
      shape: this.shape,
      strides: this.strides,
      deleter: () => {
        if (given) return;
        given = true;
        lease.unretain();
      },
      managerContext: this,
    };
  }

  private copiedTensor(): DLPackTensor {
    const copy = this.toTypedArray();
    return {
      version: DLPACK_VERSION,
      flags: DLPackFlags.IS_COPIED | (this.flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED),
      device: CPU_DEVICE,
      data: copy.buffer,
      byteOffset: 0,
      dtype: this.dtype,
      shape: this.shape,
      strides: compactStrides(this.shape),
      managerContext: copy,
    };
  }

  private caiCache: CudaArrayInterface | undefined;

  /**
   * `Symbol.for('cuda.array_interface')`: the CUDA array interface v3 of a
   * view of device-accessible memory (the same frozen object on each call).
   * Host views refuse it ({@link UnsupportedDeviceError}).
   */
  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface {
    this._checkOpen('export through the CUDA array interface');
    if (this.caiCache !== undefined) return this.caiCache;
    const device = this.device;
    if (this.ptr === undefined || !isCudaAccessible(device.type)) {
      throw new UnsupportedDeviceError(`the CUDA array interface describes CUDA-accessible memory; this view is on ${deviceTypeName(device.type)}:${device.id}`);
    }
    const typestr = this.dtype.typestr;
    if (typestr === undefined) throw new UnknownDTypeError(`${this.dtype.name} has no CUDA-array-interface typestr (packed sub-byte type); use DLPack`);
    const itemsize = this.itemsize;
    this.caiCache = Object.freeze({
      shape: Object.freeze([...this.shape]),
      typestr,
      data: Object.freeze([this.ptr, this.readonly] as const),
      strides: this.isCContiguous ? null : Object.freeze(this.strides.map((s) => s * itemsize)),
      version: 3,
      stream: this.stream === undefined || this.stream === NO_SYNC ? undefined : this.stream,
    });
    return this.caiCache;
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

function readShapeLength(shape: unknown): number {
  let isArray = false;
  try {
    isArray = Array.isArray(shape);
  } catch {
    // a revoked proxy
  }
  const n: unknown = isArray ? (shape as unknown[]).length : undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 64) throw new InvalidLayoutError(`view: shape must be an array of up to 64 integers, got ${formatValue(shape)}`);
  return n;
}

function squeeze(shape: readonly number[], strides: readonly number[]): [number[], number[]] {
  const keep = shape.map((e) => e !== 1);
  return [shape.filter((_, i) => keep[i]), strides.filter((_, i) => keep[i])];
}

/** The device of a view whose producer did not say (CUDA array interface). */
function resolveDevice(view: StridedMemoryView): Device {
  const exporter = view.exporter as { [DLPACK_DEVICE]?: () => readonly [number, number] } | null;
  if (exporter !== null && typeof exporter === 'object' && typeof exporter[DLPACK_DEVICE] === 'function') {
    const answer: unknown = exporter[DLPACK_DEVICE]();
    const type: unknown = answer !== null && typeof answer === 'object' ? (answer as unknown[])[0] : undefined;
    const id: unknown = answer !== null && typeof answer === 'object' ? (answer as unknown[])[1] : undefined;
    const device = checkedDevice(type, id);
    if (device === undefined) throw new ProtocolError(`Symbol.for('dlpack.device') returned ${formatValue(answer)}; expected [deviceType, deviceId] of integers`);
    return device;
  }
  const pointerDevice = driverHooks().pointerDevice;
  if (pointerDevice !== undefined && view.ptr !== undefined) {
    const d = pointerDevice(view.ptr);
    return { type: d.type, id: d.id };
  }
  throw new UnsupportedDeviceError(
    'the device of this CUDA array interface view is unknown: the interface does not carry it and no driver hook is registered ' +
      "(import @cuda-js/core, call setDriverHooks({ pointerDevice }), or implement Symbol.for('dlpack.device') on the exporter)",
  );
}
