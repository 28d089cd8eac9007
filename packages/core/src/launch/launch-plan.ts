import {
  driver,
  type CUfunction,
  type CUstream,
  type DriverTypes,
  type LaunchFunction,
  type PackedLaunch,
} from '@cuda-js/bindings';
import {
  CudaArrayInterfaceReader,
  dtype,
  resolveStream,
  StridedMemoryView,
  type CudaArrayInterfaceLayout,
} from '@cuda-js/memory-view';
import { planLayout, type ArgumentLayout, type PlannedSlot } from './argument-layout.js';
import {
  checkedAddress,
  checkedExtent,
  checkInterfaceDevice,
  checkViewDevice,
  hasCudaArrayInterface,
  implicitView,
  orderInterface,
  orderView,
  readInterface,
  type CudaArrayInterfaceObject,
} from './array-argument.js';
import { Buffer } from '../memory/buffer.js';
import { deviceRangeProblem } from '../memory/device-range.js';
import { ByValueArgument } from './by-value-argument.js';
import { ensureDriver } from '../context/driver-init.js';
import { LaunchArgumentError, LaunchConfigError } from '../errors.js';
import { KernelContextChecks } from './kernel-context-checks.js';
import { checkedKernelParameters, type KernelArgument, type KernelParameter } from './kernel-parameters.js';
import { LaunchConfig, type LaunchConfigOptions } from './launch-config.js';
import { ParameterBuffer } from './parameter-buffer.js';
import { Scalar } from './scalar.js';
import { scalarMismatch, writeInt64, writeScalarValue } from './scalar-writer.js';

const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;
const UINT8 = dtype('uint8');

/** What a remembered argument is (`#kinds`; 0: nothing). */
const REMEMBERED_BIGINT = 1;
const REMEMBERED_VIEW = 2;
const REMEMBERED_BUFFER = 3;
const REMEMBERED_ARRAY_INTERFACE = 4;
type RememberedKind =
  | typeof REMEMBERED_BIGINT
  | typeof REMEMBERED_VIEW
  | typeof REMEMBERED_BUFFER
  | typeof REMEMBERED_ARRAY_INTERFACE;

/** What an array slot reads of an array: a StridedMemoryView, or a CUDA array interface answer's layout. */
type ArrayDescription = Pick<
  StridedMemoryView,
  'shape' | 'strides' | 'dtype' | 'readonly' | 'isCContiguous' | 'isFContiguous'
> & { readonly ptr: bigint | undefined };

/**
 * @internal Everything of `LaunchPlan` but its `device`: the launch
 * floor knows the device of a context by its ordinal (`deviceOrdinal`), and
 * the Device facade, above it, makes that a Device. `launch`, launch batches
 * and graphs make these (`planFor`); `LaunchPlan` is the public one.
 */
export class LaunchPlanCore {
  readonly name: string;
  readonly handle: bigint;
  readonly parameters: readonly KernelParameter[];
  /** The argument layout the plan was made with, if any. */
  readonly layout: ArgumentLayout | undefined;
  readonly #slots: readonly PlannedSlot[] | undefined;
  readonly #buffer: ParameterBuffer;
  readonly #view: DataView;
  readonly #offsets: Int32Array;
  readonly #sizes: Int32Array;
  /** Per argument, the bigint, Buffer, view or CUDA array interface object whose value the parameter buffer holds from the last launch. */
  readonly #last: unknown[];
  /** Per argument, what kind of argument `#last` holds, so that the same argument again is not classified again. */
  readonly #kinds: Uint8Array;
  /** Per argument, the CUDA array interface layout whose address (extents, strides) is in place. */
  readonly #lastLayouts: (CudaArrayInterfaceLayout | undefined)[];
  /** Per argument, the reader of its CUDA array interface answers (made when one is first passed there). */
  readonly #readers: (CudaArrayInterfaceReader | undefined)[];
  /** Per argument, the implicit view made at the last launch (its producer's export is held until the next). */
  readonly #held: (StridedMemoryView | undefined)[];
  readonly #kind: 'kernel' | 'function';
  /** The handle as cuLaunchKernel takes it: a CUkernel is accepted where a CUfunction is. */
  readonly #launchHandle: CUfunction;
  readonly #kernelObject: { checkOpen?(): void } | undefined;
  readonly #contexts = new Map<bigint, KernelContextChecks>();
  #current: KernelContextChecks | undefined;

  constructor(kernel: KernelArgument, layout?: ArgumentLayout) {
    const k = typeof kernel === 'bigint' ? { handle: kernel } : kernel;
    if (typeof k !== 'object' || k === null || typeof k.handle !== 'bigint') {
      throw new TypeError(
        'launch: kernel must be a Kernel (from @cuda-js/program), an object with a bigint handle, or a bigint CUkernel',
      );
    }
    this.handle = k.handle;
    this.#kind = k.handleKind ?? 'kernel';
    this.#launchHandle = k.handle as CUfunction;
    this.#kernelObject = typeof kernel === 'object' && typeof kernel.checkOpen === 'function' ? kernel : undefined;
    this.name = k.name ?? `kernel 0x${k.handle.toString(16)}`;
    this.parameters = checkedKernelParameters(this.name, k.handle, this.#kind, k.parameters);
    this.layout = layout;
    this.#slots = layout === undefined ? undefined : planLayout(layout, this.parameters, this.name);
    this.#buffer = new ParameterBuffer(this.#launchHandle, this.parameters);
    this.#view = this.#buffer.view;
    this.#offsets = Int32Array.from(this.parameters, (p) => p.offset);
    this.#sizes = Int32Array.from(this.parameters, (p) => p.size);
    const args = this.#slots?.length ?? this.parameters.length;
    this.#last = new Array<unknown>(args).fill(undefined);
    this.#kinds = new Uint8Array(args);
    this.#lastLayouts = new Array<CudaArrayInterfaceLayout | undefined>(args).fill(undefined);
    this.#readers = new Array<CudaArrayInterfaceReader | undefined>(args).fill(undefined);
    this.#held = new Array<StridedMemoryView | undefined>(args).fill(undefined);
  }

  /** How many JS arguments a launch takes. */
  get argumentCount(): number {
    return this.#slots?.length ?? this.parameters.length;
  }

  /** @internal The ordinal of the device of the context this plan last launched or prepared in (undefined before); `LaunchPlan.device` gives its Device. */
  get deviceOrdinal(): number | undefined {
    return this.#current?.deviceOrdinal;
  }

  /**
   * The parameter buffer as the last {@link pack} left it (a copy), for
   * tests and debugging: each parameter at its offset, little-endian.
   */
  get parameterBytes(): Uint8Array {
    return this.#buffer.bytes.slice(0, this.#buffer.size);
  }

  /** The checks of the context that is current now (one query of the driver); a new context gets its own, and the arguments are checked again. */
  #enter(): KernelContextChecks {
    ensureDriver();
    const context = driver.cuCtxGetCurrent() as bigint;
    const current = this.#current;
    if (current !== undefined && current.context === context) return current;
    return this.#enterContext(context);
  }

  /** Makes `context` (current now) the one this plan launches in. */
  #enterContext(context: bigint): KernelContextChecks {
    if (context === 0n)
      throw new LaunchConfigError(`${this.name}: no current CUDA context; call device.setCurrent() first`);
    let checks = this.#contexts.get(context);
    if (checks === undefined)
      this.#contexts.set(context, (checks = new KernelContextChecks(context, this.handle, this.#kind, this.name)));
    this.#current = checks;
    this.#buffer.expectContext(context);
    this.#forgetArguments();
    return checks;
  }

  /** After a failure checked against the context of the last launch: whether another one is current now (then it is entered). */
  #enteredAnother(): boolean {
    const assumed = this.#current;
    return assumed !== undefined && this.#enter() !== assumed;
  }

  #forgetArguments(): void {
    this.#last.fill(undefined);
    this.#lastLayouts.fill(undefined);
    this.#held.fill(undefined);
    for (const reader of this.#readers) reader?.forget();
  }

  /** Checks, once per stream and context, that the stream belongs to the current context. */
  checkStream(stream: bigint): void {
    this.#enter().checkStream(stream);
  }

  /** Checks a config against the current device and this kernel, once per config and context. */
  check(config: LaunchConfig): void {
    this.#enter().checkConfig(config);
  }

  /**
   * Everything a launch checks before packing: that the kernel is still
   * loaded, the config (a plain object becomes a cached LaunchConfig) against
   * the current context's device and the kernel, and that the stream belongs
   * to the context; each check once per context. Returns the config.
   */
  prepare(config: LaunchConfig | LaunchConfigOptions, stream: bigint): LaunchConfig {
    const cfg = config instanceof LaunchConfig ? config : LaunchConfig.from(config);
    this.#kernelObject?.checkOpen?.();
    const checks = this.#enter();
    checks.checkConfig(cfg);
    checks.checkStream(stream);
    return cfg;
  }

  /**
   * {@link prepare}, {@link pack} and {@link launch}: a whole launch, one
   * native launch call. The context of the last launch is assumed, and the
   * launch call checks that it is still current: when it is not (or a check
   * fails), the launch is checked again against the context that is.
   */
  run(config: LaunchConfig | LaunchConfigOptions, stream: bigint, args: readonly unknown[]): void {
    const cfg = config instanceof LaunchConfig ? config : LaunchConfig.from(config);
    const checks = this.#current;
    if (checks === undefined || cfg.cluster !== undefined || cfg.cooperative) {
      this.#runChecked(cfg, stream, args);
      return;
    }
    this.#kernelObject?.checkOpen?.();
    try {
      checks.checkConfig(cfg);
      checks.checkStream(stream);
      this.pack(args, stream);
    } catch (error) {
      if (!this.#enteredAnother()) throw error;
      this.#runChecked(cfg, stream, args);
      return;
    }
    // another context is current (nothing was launched): the launch is checked again in it
    if (this.#buffer.launch(cfg, stream) !== undefined) this.#runChecked(cfg, stream, args);
  }

  /**
   * For a launch batch: everything {@link run} does before its launch call,
   * against `context` (the one current when the batch opened, which the batch's
   * native submission checks again), and the header for `config` and `stream`.
   * Returns the bytes of the parameters and the header, for the batch to copy
   * into its queue; undefined for a cluster or cooperative launch, which no
   * queue takes (the batch submits what it holds and launches it at once).
   */
  packRecord(
    config: LaunchConfig | LaunchConfigOptions,
    stream: bigint,
    args: readonly unknown[],
    context: bigint,
  ): Uint8Array | undefined {
    const cfg = config instanceof LaunchConfig ? config : LaunchConfig.from(config);
    if (cfg.cluster !== undefined || cfg.cooperative) return undefined;
    this.#kernelObject?.checkOpen?.();
    const current = this.#current;
    const checks = current !== undefined && current.context === context ? current : this.#enterContext(context);
    checks.checkConfig(cfg);
    checks.checkStream(stream);
    this.pack(args, stream);
    this.#buffer.writeHeader(cfg, stream);
    return this.#buffer.record;
  }

  /** The native launch as a launch queue names it (`cuLaunchKernelQueue`'s `launches`). */
  get queued(): LaunchFunction | PackedLaunch {
    return this.#buffer.queued;
  }

  /** {@link prepare}, {@link pack} and {@link launch}: a whole launch, checked against the context current now. */
  #runChecked(cfg: LaunchConfig, stream: bigint, args: readonly unknown[]): void {
    this.prepare(cfg, stream);
    this.pack(args, stream);
    this.launch(cfg, stream);
  }

  /**
   * Writes the arguments into the parameter buffer, for a launch on `stream`
   * (a CUstream). An argument that is the same as in the last launch is not
   * written again (a view's or CUDA array's stream is still ordered before
   * the launch).
   */
  pack(args: readonly unknown[], stream: bigint): void {
    const slots = this.#slots;
    if (slots === undefined) this.#packParameters(args, stream);
    else this.#packSlots(slots, args, stream);
  }

  #countError(given: number, expected: number): LaunchArgumentError {
    return new LaunchArgumentError(
      this.name,
      Math.min(given, expected),
      `the kernel takes ${expected} argument(s), ${given} were given`,
    );
  }

  /** The ordinal of the current context's device, -1 before the first launch (then only host memory is refused). */
  get #ordinal(): number {
    return this.#current?.deviceOrdinal ?? -1;
  }

  /** One argument per parameter, each checked by size. */
  #packParameters(args: readonly unknown[], stream: bigint): void {
    const count = this.#offsets.length;
    if (args.length !== count) throw this.#countError(args.length, count);
    const view = this.#view;
    const offsets = this.#offsets;
    const sizes = this.#sizes;
    const last = this.#last;
    const kinds = this.#kinds;
    const lastLayouts = this.#lastLayouts;
    const consumer = resolveStream(stream)!;
    for (let i = 0; i < count; i++) {
      const arg = args[i];
      // The same bigint, Buffer or view as in the last launch: the bytes are in place; the same CUDA array: compared with its last answer.
      if (arg === last[i] && arg !== undefined) {
        const kind = kinds[i];
        if (kind === REMEMBERED_BIGINT) continue;
        if (kind === REMEMBERED_VIEW) {
          if (!(arg as StridedMemoryView).closed) {
            orderView(arg as StridedMemoryView, consumer, stream);
            continue;
          }
        } else if (kind === REMEMBERED_BUFFER) {
          if (!(arg as Buffer).closed) continue;
        } else if (kind === REMEMBERED_ARRAY_INTERFACE) {
          // a failed reading writes nothing: what is remembered still holds
          this.#packInterface(i, arg as CudaArrayInterfaceObject, undefined, lastLayouts[i], stream, consumer);
          continue;
        }
      }
      const offset = offsets[i]!;
      const size = sizes[i]!;
      const previousLayout = lastLayouts[i];
      // Nothing is known to be in place until this argument is written.
      last[i] = undefined;
      lastLayouts[i] = undefined;
      if (typeof arg === 'number') {
        if (size === 4 && (arg | 0) === arg) view.setInt32(offset, arg, true);
        else this.#packNumber(i, arg, offset, size);
      } else if (typeof arg === 'bigint') {
        if (size !== 8) throw this.#sizeError(i, 'a bigint (8 bytes)', size);
        if (arg < MIN_INT64 || arg > MAX_UINT64)
          throw new LaunchArgumentError(this.name, i, `${arg} does not fit in 64 bits`);
        view.setBigUint64(offset, arg < 0n ? BigInt.asUintN(64, arg) : arg, true);
        this.#remember(i, arg, REMEMBERED_BIGINT);
      } else if (arg instanceof Buffer) {
        if (size !== 8) throw this.#sizeError(i, 'a Buffer (a pointer, 8 bytes)', size);
        if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the Buffer is closed');
        if (!arg.isDeviceAccessible)
          throw new LaunchArgumentError(this.name, i, 'the Buffer is not accessible from the device');
        view.setBigUint64(offset, checkedAddress(arg.ptr, this.name, i), true);
        this.#remember(i, arg, REMEMBERED_BUFFER);
      } else if (arg instanceof StridedMemoryView) {
        if (size !== 8) throw this.#sizeError(i, 'an array (a pointer, 8 bytes)', size);
        if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the view is closed');
        checkViewDevice(arg, this.#ordinal, this.name, i);
        view.setBigUint64(offset, checkedAddress(arg.ptr, this.name, i), true);
        orderView(arg, consumer, stream);
        this.#remember(i, arg, REMEMBERED_VIEW);
      } else if (arg instanceof Scalar) {
        if (size !== arg.size) throw this.#sizeError(i, `${arg} (${arg.size} bytes)`, size);
        arg.writeTo(view, offset);
      } else if (arg instanceof ByValueArgument) {
        if (size !== arg.byteLength) throw this.#sizeError(i, `${arg} (${arg.byteLength} bytes, by value)`, size);
        if (arg.closed) throw new LaunchArgumentError(this.name, i, `${arg}: the memory it addresses was closed`);
        arg.writeTo(this.#buffer.bytes, offset);
      } else if (typeof arg === 'object' && arg !== null) {
        if (size !== 8) throw this.#sizeError(i, 'an array (a pointer, 8 bytes)', size);
        if (hasCudaArrayInterface(arg)) {
          this.#packInterface(i, arg, undefined, previousLayout, stream, consumer);
        } else {
          const implicit = implicitView(arg, consumer, this.name, i);
          checkViewDevice(implicit, this.#ordinal, this.name, i);
          view.setBigUint64(offset, checkedAddress(implicit.ptr, this.name, i), true);
          this.#held[i] = implicit;
        }
      } else {
        throw new LaunchArgumentError(
          this.name,
          i,
          `cannot pass ${arg === null ? 'null' : typeof arg}; use a Buffer, an array, a bigint address or a typed scalar such as i32(x), f32(x)`,
        );
      }
    }
  }

  /**
   * Packs the CUDA array interface object at argument `i`, reading what it
   * answers now with the position's reader: a layout other than `previous`
   * (the one whose bytes are in place) is written; the same one only orders
   * the launch stream again.
   */
  #packInterface(
    i: number,
    arg: CudaArrayInterfaceObject,
    slot: PlannedSlot | undefined,
    previous: CudaArrayInterfaceLayout | undefined,
    stream: bigint,
    consumer: bigint,
  ): void {
    const layout = readInterface(arg, (this.#readers[i] ??= new CudaArrayInterfaceReader()), this.name, i, slot?.name);
    if (layout !== previous) {
      this.#writeInterface(i, arg, layout, slot, stream, consumer);
      return;
    }
    if (arg !== this.#last[i]) {
      // another object that says what the last one said: the bytes are in place
      this.#lastLayouts[i] = layout;
      this.#remember(i, arg, REMEMBERED_ARRAY_INTERFACE);
    }
    orderInterface(layout, consumer, stream);
  }

  /**
   * Writes a CUDA array interface layout at argument `i`, after the device
   * check: its address (with a slot, its extents and strides too, after the
   * slot's checks); then orders the launch stream after the producer's.
   */
  #writeInterface(
    i: number,
    arg: CudaArrayInterfaceObject,
    layout: CudaArrayInterfaceLayout,
    slot: PlannedSlot | undefined,
    stream: bigint,
    consumer: bigint,
  ): void {
    this.#last[i] = undefined;
    this.#lastLayouts[i] = undefined;
    checkInterfaceDevice(layout.ptr, this.#ordinal, this.name, i, slot?.name);
    if (slot === undefined) this.#view.setBigUint64(this.#offsets[i]!, layout.ptr, true);
    else this.#writeArray(i, slot, layout);
    orderInterface(layout, consumer, stream);
    this.#lastLayouts[i] = layout;
    this.#remember(i, arg, REMEMBERED_ARRAY_INTERFACE); // held until the next launch, as an implicit view is
    this.#held[i] = undefined;
  }

  /** Remembers that the parameters of argument `i` hold `arg`, a `kind`. */
  #remember(i: number, arg: unknown, kind: RememberedKind): void {
    this.#last[i] = arg;
    this.#kinds[i] = kind;
  }

  /**
   * A plain number is a 32-bit signed integer, and only for a 4-byte parameter:
   * never a float (say f32(x)), never 64-bit and never a pointer (say i64(x) or
   * pass a bigint), so that a wrong type cannot pass silently.
   */
  #packNumber(i: number, arg: number, offset: number, size: number): void {
    if (size !== 4)
      throw this.#sizeError(
        i,
        `the number ${arg} (a plain number is an i32, 4 bytes; use i64(), f64(), a bigint or an array for 8)`,
        size,
      );
    if (!Number.isInteger(arg))
      throw new LaunchArgumentError(
        this.name,
        i,
        `${arg} is not an integer; a plain number is an i32, so say f32(${arg}) for a float`,
      );
    if (arg < -(2 ** 31) || arg > 2 ** 31 - 1)
      throw new LaunchArgumentError(this.name, i, `${arg} does not fit in an i32; use u32() or i64()`);
    this.#view.setInt32(offset, arg, true);
  }

  #sizeError(i: number, what: string, size: number): LaunchArgumentError {
    return new LaunchArgumentError(this.name, i, `the kernel's parameter is ${size} bytes, but ${what} was given`);
  }

  /** One argument per slot of the layout. */
  #packSlots(slots: readonly PlannedSlot[], args: readonly unknown[], stream: bigint): void {
    const count = slots.length;
    if (args.length !== count) throw this.#countError(args.length, count);
    const view = this.#view;
    const offsets = this.#offsets;
    const consumer = resolveStream(stream)!;
    for (let i = 0; i < count; i++) {
      const slot = slots[i]!;
      const arg = args[i];
      const type = slot.scalarType;
      if (type !== undefined) {
        if (!writeScalarValue(view, offsets[slot.first]!, type, arg))
          throw new LaunchArgumentError(this.name, i, scalarMismatch(type, arg), slot.name);
      } else {
        this.#packArray(i, slot, arg, stream, consumer);
      }
    }
  }

  #packArray(i: number, slot: PlannedSlot, arg: unknown, stream: bigint, consumer: bigint): void {
    const last = this.#last;
    const lastLayouts = this.#lastLayouts;
    if (arg === last[i] && this.#kinds[i] === REMEMBERED_ARRAY_INTERFACE) {
      this.#packInterface(i, arg as CudaArrayInterfaceObject, slot, lastLayouts[i], stream, consumer);
      return;
    }
    if (arg instanceof StridedMemoryView) {
      if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the view is closed', slot.name);
      if (arg !== last[i]) {
        // changed: checked and written; an unchanged one has its pointer, extents and strides in place
        last[i] = undefined;
        lastLayouts[i] = undefined;
        checkViewDevice(arg, this.#ordinal, this.name, i, slot.name);
        this.#writeArray(i, slot, arg);
        this.#remember(i, arg, REMEMBERED_VIEW);
      }
      orderView(arg, consumer, stream);
      return;
    }
    if (typeof arg === 'bigint') {
      if (arg === last[i] && this.#kinds[i] === REMEMBERED_BIGINT) return;
      last[i] = undefined;
      lastLayouts[i] = undefined;
      this.#writeAddress(i, slot, arg);
      this.#remember(i, arg, REMEMBERED_BIGINT);
      return;
    }
    if (arg instanceof Buffer) {
      if (arg === last[i] && !arg.closed) return;
      last[i] = undefined;
      lastLayouts[i] = undefined;
      this.#writeBuffer(i, slot, arg);
      this.#remember(i, arg, REMEMBERED_BUFFER);
      return;
    }
    if (typeof arg !== 'object' || arg === null) {
      throw new LaunchArgumentError(
        this.name,
        i,
        `cannot pass ${arg === null ? 'null' : typeof arg} as an array; pass a StridedMemoryView or any DLPack or CUDA array interface object`,
        slot.name,
      );
    }
    if (hasCudaArrayInterface(arg)) {
      this.#packInterface(i, arg, slot, lastLayouts[i], stream, consumer);
      return;
    }
    last[i] = undefined;
    lastLayouts[i] = undefined;
    const view = implicitView(arg, consumer, this.name, i, slot.name);
    checkViewDevice(view, this.#ordinal, this.name, i, slot.name);
    this.#writeArray(i, slot, view);
    this.#held[i] = view;
  }

  /** Checks an array against its slot and writes its pointer, extents and strides. */
  #writeArray(i: number, slot: PlannedSlot, array: ArrayDescription): void {
    const name = slot.name;
    const ndim = slot.ndim;
    const shape = array.shape;
    if (shape.length !== ndim)
      throw new LaunchArgumentError(
        this.name,
        i,
        `the array has ${shape.length} dimension(s), the kernel takes ${ndim}`,
        name,
      );
    if (slot.dtype !== undefined && array.dtype !== slot.dtype)
      throw new LaunchArgumentError(
        this.name,
        i,
        `the array holds ${array.dtype.name}, the kernel takes ${slot.dtype.name}`,
        name,
      );
    if (slot.layout === 'C' ? !array.isCContiguous : slot.layout === 'F' && !array.isFContiguous) {
      throw new LaunchArgumentError(
        this.name,
        i,
        `the kernel takes a ${slot.layout}-contiguous array; this one has strides [${array.strides.join(', ')}] for shape [${shape.join(', ')}]`,
        name,
      );
    }
    if (slot.writable && array.readonly)
      throw new LaunchArgumentError(this.name, i, 'the kernel writes the array, and the view is read-only', name);
    const data = this.#view;
    const offsets = this.#offsets;
    let p = slot.first;
    data.setBigUint64(offsets[p++]!, checkedAddress(array.ptr, this.name, i, name), true);
    if (slot.shape)
      for (let d = 0; d < ndim; d++)
        writeInt64(data, offsets[p++]!, checkedExtent(shape[d], this.name, i, name, false));
    if (slot.strides) {
      const strides = array.strides;
      for (let d = 0; d < ndim; d++)
        writeInt64(data, offsets[p++]!, checkedExtent(strides[d], this.name, i, name, true));
    }
  }

  /**
   * A raw device address (a bigint) in an array slot that passes only its
   * data pointer (a JIT kernel's `pointer(dtype)` parameter, numba's
   * `CPointer`): checked with the driver to lie in an allocation it knows
   * (cuPointerGetAttribute) before the kernel is given it, as a made-up
   * address would fault the context. The same address again is not asked
   * about again.
   */
  #writeAddress(i: number, slot: PlannedSlot, address: bigint): void {
    const name = slot.name;
    if (slot.ndim !== 1 || slot.shape || slot.strides) {
      throw new LaunchArgumentError(
        this.name,
        i,
        `a bigint address carries no extents or strides, and the kernel reads this array's ${slot.shape ? 'extents' : 'strides'}; pass an array`,
        name,
      );
    }
    if (address <= 0n || address > MAX_UINT64)
      throw new LaunchArgumentError(this.name, i, `${address} is no device address`, name);
    const problem = deviceRangeProblem(address, slot.dtype?.itemsize ?? 1);
    if (problem !== undefined) throw new LaunchArgumentError(this.name, i, `the address ${problem}`, name);
    this.#view.setBigUint64(this.#offsets[slot.first]!, address, true);
  }

  /** A Buffer in an array slot is its bytes: uint8, 1-D, compact. */
  #writeBuffer(i: number, slot: PlannedSlot, buffer: Buffer): void {
    const name = slot.name;
    if (buffer.closed) throw new LaunchArgumentError(this.name, i, 'the Buffer is closed', name);
    if (!buffer.isDeviceAccessible)
      throw new LaunchArgumentError(this.name, i, 'the Buffer is not accessible from the device', name);
    if (slot.ndim !== 1 || (slot.dtype !== undefined && slot.dtype !== UINT8)) {
      const want = `${slot.dtype?.name ?? 'an'} array of ${slot.ndim} dimension(s)`;
      throw new LaunchArgumentError(
        this.name,
        i,
        `a Buffer is bytes (uint8, 1-D), the kernel takes ${want}; pass a typed view of it: StridedMemoryView.fromAny(buffer, { stream }).view({ dtype, shape })`,
        name,
      );
    }
    const ordinal = this.#ordinal;
    const device = buffer.device;
    if (ordinal >= 0 && device !== undefined && !buffer.isHostAccessible && device.ordinal !== ordinal) {
      throw new LaunchArgumentError(
        this.name,
        i,
        `the Buffer lives on CUDA device ${device.ordinal}, but the launch is on device ${ordinal}`,
        name,
      );
    }
    const data = this.#view;
    const offsets = this.#offsets;
    let p = slot.first;
    data.setBigUint64(offsets[p++]!, checkedAddress(buffer.ptr, this.name, i, name), true);
    if (slot.shape) writeInt64(data, offsets[p++]!, buffer.size);
    if (slot.strides) writeInt64(data, offsets[p++]!, 1);
  }

  /**
   * Launches with the packed arguments: one native call, in the context that
   * {@link prepare} checked them against (a LaunchConfigError if another one
   * is current now).
   */
  launch(config: LaunchConfig, stream: bigint): void {
    if (config.cluster !== undefined || config.cooperative) {
      this.#launchEx(config, stream);
      return;
    }
    const current = this.#buffer.launch(config, stream);
    if (current !== undefined) {
      throw new LaunchConfigError(
        `${this.name}: the current CUDA context 0x${current.toString(16)} is not the one the launch was prepared in${this.#current ? ` (0x${this.#current.context.toString(16)})` : ''}; call prepare() in this context first, or run()`,
      );
    }
  }

  /** A cluster or cooperative launch: cuLaunchKernelEx with its attributes. */
  #launchEx(config: LaunchConfig, stream: bigint): void {
    const grid = config.grid;
    const block = config.block;
    const ids = driver.CUlaunchAttributeID;
    const attrs: { id: number; value: DriverTypes.CUlaunchAttributeValue }[] = [];
    if (config.cooperative) attrs.push({ id: ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, value: { cooperative: 1 } });
    const cluster = config.cluster;
    if (cluster)
      attrs.push({
        id: ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        value: { clusterDim: { x: cluster[0], y: cluster[1], z: cluster[2] } },
      });
    driver.cuLaunchKernelEx(
      {
        gridDimX: grid[0],
        gridDimY: grid[1],
        gridDimZ: grid[2],
        blockDimX: block[0],
        blockDimY: block[1],
        blockDimZ: block[2],
        sharedMemBytes: config.sharedMemory,
        hStream: stream as CUstream,
        attrs,
      },
      this.#launchHandle,
      this.#buffer.params,
    );
  }
}
