// An n-D array of one dtype in memory that a Buffer owns (numba's
// DeviceNDArray): the Buffer holds the bytes, a StridedMemoryView of it
// holds the layout, and the protocols are the view's. It lives in core, not
// in the JIT, because everything it is made of is core's (Buffer, memory
// resources, stream-ordered copies) and it is useful without kernels; the
// JIT re-exports numba-named makers of it (toDevice, deviceArray, ...).
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  dtype as toDType,
  readShape,
  StridedMemoryView,
  type AnyTypedArray,
  type CudaArrayInterface,
  type DLPackRequest,
  type DLPackTensor,
  type DType,
  type DTypeLike,
  type SliceSpec,
} from '@cuda-js/memory-view';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { Device } from './device.js';
import { CopyError } from '../errors.js';
import { checkCoreOptions, DEVICE_ARRAY_OPTIONS, STREAM_OPTIONS } from '../core-options.js';
import type { Buffer } from '../memory/buffer.js';
import { PinnedMemoryResource } from '../memory/memory-resources.js';

/** Where {@link DeviceArray.allocate} puts the elements: device memory (the device's pool), pinned host memory mapped for the device, or managed memory. */
export type ArrayMemory = 'device' | 'pinned' | 'managed';

export interface DeviceArrayOptions {
  /** The device (default: the current one, else device 0). Pinned memory belongs to no device. */
  readonly device?: Device | undefined;
  /** The stream the allocation and copies are ordered on (default: the legacy default stream). */
  readonly stream?: StreamArgument | undefined;
  /** Default `'device'`. */
  readonly memory?: ArrayMemory | undefined;
}

/** Host memory that {@link DeviceArray.copyToHost} and {@link DeviceArray.copyFromHost} take: a typed array or a host view of the same dtype and shape, or another array in host-accessible memory. */
export type HostArrayTarget = ArrayBufferView | StridedMemoryView | DeviceArray;

let pinned: PinnedMemoryResource | undefined;

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function compactBytes(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * An n-D array of one dtype in device, pinned or managed memory, as
 * numba's device arrays are: `shape`, `strides` (in elements), `dtype`,
 * copies to and from the host ordered on a stream, and the array protocols
 * (DLPack, the CUDA array interface), so kernels and other libraries take
 * it directly. Slices and reshapes share the memory.
 *
 * ```ts
 * const d = DeviceArray.fromHost(Float32Array.from([1, 2, 3, 4]), { stream });
 * const m = d.reshape([2, 2]);            // the same memory, 2-D
 * const host = d.copyToHost({ stream });   // a Float32Array
 * ```
 */
export class DeviceArray implements Disposable {
  /** The layout and memory: pass it where a StridedMemoryView is wanted. */
  readonly view: StridedMemoryView;
  /** The Buffer that owns the memory (shared by slices and reshapes), or undefined for an array over a view that something else owns. */
  readonly buffer: Buffer | undefined;

  /** Whether {@link close} gives the memory back: the array that allocated it does; its slices and reshapes do not. */
  #owns: boolean;

  /**
   * An array over `view` (device memory, or host memory: the simulator's
   * arrays), whose memory `buffer` owns where given (given back by
   * {@link close}).
   */
  constructor(view: StridedMemoryView, buffer?: Buffer) {
    if (!(view instanceof StridedMemoryView)) throw new TypeError('DeviceArray: expected a StridedMemoryView');
    this.view = view;
    this.buffer = buffer;
    this.#owns = true;
  }

  /** A slice or reshape: the same Buffer, which the array it came from gives back. */
  #derived(view: StridedMemoryView): DeviceArray {
    const array = new DeviceArray(view, this.buffer);
    array.#owns = false;
    return array;
  }

  /**
   * A new array of `shape` and `dtype`, its elements not set (numba's
   * `device_array`; `memory: 'pinned'` is `pinned_array` and `mapped_array`,
   * host memory the device reads through its address; `'managed'` is
   * `managed_array`).
   */
  static allocate(shape: readonly number[], dtype: DTypeLike, options: DeviceArrayOptions = {}): DeviceArray {
    options = checkCoreOptions('DeviceArray.allocate', options, DEVICE_ARRAY_OPTIONS);
    // read once (a Proxy answers once): non-negative safe integers, of a safe product
    const extents = readShape(shape, 'DeviceArray.allocate');
    const t = toDType(dtype);
    const bytes = Math.ceil(extents.reduce((a, b) => a * b, 1) * t.itemsize);
    const memory = options.memory ?? 'device';
    const device = options.device ?? Device.current() ?? Device.get(0).setCurrent();
    let buffer: Buffer;
    if (memory === 'device') buffer = device.allocate(Math.max(bytes, 1), { stream: options.stream });
    else if (memory === 'pinned') buffer = (pinned ??= new PinnedMemoryResource()).allocate(Math.max(bytes, 1));
    else if (memory === 'managed') buffer = device.allocateManaged(Math.max(bytes, 1));
    else throw new TypeError(`DeviceArray.allocate: memory is 'device', 'pinned' or 'managed', got ${String(memory)}`);
    try {
      const stream = options.stream === undefined ? 0n : streamHandle(options.stream, 'DeviceArray.allocate: stream');
      const whole = StridedMemoryView.fromAny(buffer, { stream }).view({ dtype: 'uint8' });
      return new DeviceArray(whole.slice([0, bytes]).view({ dtype: t }).view({ shape: extents }), buffer);
    } catch (error) {
      buffer.close();
      throw error;
    }
  }

  /** A new array of `like`'s shape and dtype (numba's `device_array_like`), compact in C order. */
  static allocateLike(
    like: { readonly shape: readonly number[]; readonly dtype: DType } | ArrayBufferView,
    options: DeviceArrayOptions = {},
  ): DeviceArray {
    options = checkCoreOptions('DeviceArray.allocateLike', options, DEVICE_ARRAY_OPTIONS);
    const view = ArrayBuffer.isView(like) ? StridedMemoryView.fromTypedArray(like) : like;
    return DeviceArray.allocate(view.shape, view.dtype, options);
  }

  /**
   * A device copy of a host array (numba's `to_device`): a typed array, a
   * host StridedMemoryView or anything `StridedMemoryView.fromAny` views on
   * the host (strided ones are made compact), ordered on `stream`.
   */
  static fromHost(host: unknown, options: DeviceArrayOptions = {}): DeviceArray {
    options = checkCoreOptions('DeviceArray.fromHost', options, DEVICE_ARRAY_OPTIONS);
    const view = host instanceof StridedMemoryView ? host : StridedMemoryView.fromAny(host);
    if (!view.isHostReadable)
      throw new CopyError(
        'DeviceArray.fromHost: the array is not host memory; use DeviceArray.allocate and copy on the device',
      );
    const array = DeviceArray.allocate(view.shape, view.dtype, options);
    try {
      array.copyFromHost(view, { stream: options.stream });
    } catch (error) {
      array.close();
      throw error;
    }
    return array;
  }

  get shape(): readonly number[] {
    return this.view.shape;
  }

  /** In elements, as the view's. */
  get strides(): readonly number[] {
    return this.view.strides;
  }

  get dtype(): DType {
    return this.view.dtype;
  }

  get ndim(): number {
    return this.view.ndim;
  }

  get size(): number {
    return this.view.size;
  }

  get nbytes(): number {
    return this.view.nbytes;
  }

  get closed(): boolean {
    return this.view.closed || (this.buffer?.closed ?? false);
  }

  /** Whether JS can read the elements through an address (pinned or managed memory). */
  get isHostAccessible(): boolean {
    return this.view.isHostReadable;
  }

  /** The same memory with another shape (C-contiguous arrays), as numpy's `reshape`. */
  reshape(shape: readonly number[]): DeviceArray {
    return this.#derived(this.view.view({ shape }));
  }

  /** A slice sharing the memory (`a.slice([1])` is numba's `a[1:]`; see StridedMemoryView.slice). */
  slice(...specs: SliceSpec[]): DeviceArray {
    return this.#derived(this.view.slice(...specs));
  }

  /** A zero-copy typed array over pinned or managed memory (numba's pinned and mapped arrays are host arrays): synchronize the stream that wrote it first. */
  typedArray(): AnyTypedArray {
    return this.view.typedArray();
  }

  #compactBytes(what: string): number {
    if (!this.view.isCContiguous)
      throw new CopyError(
        `DeviceArray.${what}: the array is not compact (strides [${this.strides.join(', ')}]); copy a compact array`,
      );
    return this.nbytes;
  }

  /** The bytes of this (compact) array as a Buffer-sized region: the owning Buffer when the array covers it all. */
  #wholeBuffer(what: string): Buffer {
    const bytes = this.#compactBytes(what);
    const buffer = this.buffer;
    if (buffer === undefined || buffer.size !== bytes || buffer.ptr !== this.view.ptr) {
      throw new CopyError(
        `DeviceArray.${what}: a slice or an array without its own Buffer is copied through a kernel or a compact copy, not by this method`,
      );
    }
    return buffer;
  }

  /**
   * Copies the elements to the host (numba's `copy_to_host`). Without
   * `target`, into a new typed array (complete when this returns). Into
   * another array in pinned memory (`DeviceArray.allocate(shape, dtype, { memory: 'pinned' })`)
   * the copy is stream-ordered and returns at once: synchronize `stream`
   * before reading it. Into a typed array or host view, complete on return.
   *
   * @throws {CopyError} for a target of another size, a strided array, or a closed one
   */
  copyToHost(
    target?: HostArrayTarget | { readonly stream?: StreamArgument | undefined },
    options: { readonly stream?: StreamArgument | undefined } = {},
  ): AnyTypedArray | HostArrayTarget {
    if (
      target !== undefined &&
      !(target instanceof DeviceArray) &&
      !(target instanceof StridedMemoryView) &&
      !ArrayBuffer.isView(target)
    ) {
      options = target;
      target = undefined;
    }
    options = checkCoreOptions('DeviceArray.copyToHost', options, STREAM_OPTIONS);
    if (this.buffer === undefined) return this.#hostCopyTo(target as HostArrayTarget | undefined);
    const source = this.#wholeBuffer('copyToHost');
    const stream = options.stream;
    if (target instanceof DeviceArray) {
      const into = target.#wholeBuffer('copyToHost');
      if (into.size !== source.size)
        throw new CopyError(`DeviceArray.copyToHost: the target has ${into.size} bytes, the array ${source.size}`);
      source.copyTo(into, { stream }); // stream-ordered, device to pinned
      return target;
    }
    if (target === undefined) {
      const array = StridedMemoryView.fromBuffer(new ArrayBuffer(source.size), {
        dtype: this.dtype,
        shape: this.shape,
      }).typedArray();
      source.copyTo(compactBytes(array), { stream });
      return array;
    }
    const view = target instanceof StridedMemoryView ? target : StridedMemoryView.fromTypedArray(target);
    if (view.nbytes !== source.size)
      throw new CopyError(`DeviceArray.copyToHost: the target has ${view.nbytes} bytes, the array ${source.size}`);
    if (view.isCContiguous && view.buffer !== undefined) {
      source.copyTo(compactBytes(view.typedArray()), { stream });
    } else {
      const staging = new Uint8Array(source.size);
      source.copyTo(staging, { stream });
      view.copyFrom(StridedMemoryView.fromBuffer(staging, { dtype: view.dtype, shape: view.shape }));
    }
    return target;
  }

  /**
   * Copies host elements into this array (numba's `copy_to_device`), of the
   * same size: from a typed array or host view (staged by the driver, so
   * `source` may change once this returns), or from another array
   * (pinned memory: stream-ordered).
   */
  copyFromHost(
    source: HostArrayTarget | unknown,
    options: { readonly stream?: StreamArgument | undefined } = {},
  ): this {
    options = checkCoreOptions('DeviceArray.copyFromHost', options, STREAM_OPTIONS);
    if (this.buffer === undefined) {
      if (!this.view.isHostReadable)
        throw new CopyError(
          'DeviceArray.copyFromHost: the array has no Buffer and is not host memory; copy into it on the device',
        );
      const from =
        source instanceof DeviceArray
          ? source.view
          : source instanceof StridedMemoryView
            ? source
            : StridedMemoryView.fromAny(source);
      if (from.size !== this.size)
        throw new CopyError(`DeviceArray.copyFromHost: the source has ${from.size} elements, the array ${this.size}`);
      this.view.copyFrom(sameShape(from.shape, this.shape) ? from : from.view({ shape: this.shape }));
      return this;
    }
    const into = this.#wholeBuffer('copyFromHost');
    const stream = options.stream;
    if (source instanceof DeviceArray) {
      into.copyFrom(source.#wholeBuffer('copyFromHost'), { stream });
      return this;
    }
    const view = source instanceof StridedMemoryView ? source : StridedMemoryView.fromAny(source);
    if (view.nbytes !== into.size)
      throw new CopyError(`DeviceArray.copyFromHost: the source has ${view.nbytes} bytes, the array ${into.size}`);
    const compact = view.isCContiguous && view.buffer !== undefined ? view.typedArray('read') : view.toTypedArray();
    if (into.size > 0) into.copyFrom(compactBytes(compact), { stream });
    return this;
  }

  /** copyToHost of an array in host memory (the simulator's): a compact copy, or elements copied into `target`. */
  #hostCopyTo(target: HostArrayTarget | undefined): AnyTypedArray | HostArrayTarget {
    if (!this.view.isHostReadable)
      throw new CopyError('DeviceArray.copyToHost: the array has no Buffer and is not host memory');
    if (target === undefined) return this.view.toTypedArray();
    const into =
      target instanceof DeviceArray
        ? target.view
        : target instanceof StridedMemoryView
          ? target
          : StridedMemoryView.fromTypedArray(target);
    if (into.size !== this.size)
      throw new CopyError(`DeviceArray.copyToHost: the target has ${into.size} elements, the array ${this.size}`);
    (sameShape(into.shape, this.shape) ? into : into.view({ shape: this.shape })).copyFrom(this.view);
    return target;
  }

  /** `Symbol.for('dlpack')`: the view's export (the array stays alive while the tensor does). */
  [DLPACK](request?: DLPackRequest): DLPackTensor {
    return this.view[DLPACK](request);
  }

  [DLPACK_DEVICE](): readonly [number, number] {
    return this.view[DLPACK_DEVICE]();
  }

  /** `Symbol.for('cuda.array_interface')`: the view's answer (one frozen object). */
  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface {
    return this.view[CUDA_ARRAY_INTERFACE]();
  }

  /**
   * Gives the memory back (stream-ordered for device memory), which ends its
   * slices and reshapes too; on a slice or reshape it does nothing (the
   * array it came from owns the memory). Safe to call twice.
   */
  close(options: { readonly stream?: StreamArgument | undefined } = {}): void {
    options = checkCoreOptions('DeviceArray.close', options, STREAM_OPTIONS);
    if (!this.#owns) return;
    if (!this.view.closed) this.view.close();
    this.buffer?.close(options);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `DeviceArray(${this.dtype.name} [${this.shape.join(', ')}] strides [${this.strides.join(', ')}]${this.closed ? ', closed' : ''})`;
  }
}
