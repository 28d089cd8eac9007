import { driver, type CUfunction, type CUstream, type DriverTypes, type KernelParams } from '@cuda-js/bindings';
import { CUDA_ARRAY_INTERFACE, dtype, resolveStream, StridedMemoryView, type CudaArrayInterface } from '@cuda-js/memory-view';
import { planLayout, type ArgumentLayout, type PlannedSlot } from './argument-layout.js';
import {
  checkedAddress,
  checkedExtent,
  checkViewDevice,
  hasCudaArrayInterface,
  implicitView,
  interfaceAddress,
  isReusableAnswer,
  orderView,
  viewAddress,
  type CudaArrayInterfaceObject,
} from './array-argument.js';
import { Buffer } from './buffer.js';
import type { Device } from './device.js';
import { ensureDriver } from './driver-init.js';
import { LaunchArgumentError, LaunchConfigError } from './errors.js';
import { KernelContextChecks } from './kernel-context-checks.js';
import { readKernelParameters, type KernelArgument, type KernelParameter } from './kernel-parameters.js';
import { LaunchConfig, type LaunchConfigOptions } from './launch-config.js';
import { Scalar } from './scalar.js';
import { scalarMismatch, writeInt64, writeScalarValue } from './scalar-writer.js';

const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;
const UINT8 = dtype('uint8');

/**
 * Everything about launching one kernel that is worked out once: its handle,
 * its parameter layout, a reusable parameter buffer with the native pointer
 * table over it, and, per CUDA context, the configs and streams already
 * checked against that context's device.
 *
 * Made from a kernel alone, each JS argument is one kernel parameter, checked
 * by size (see {@link launch}). Made with an {@link ArgumentLayout}, each JS
 * argument fills the parameters its slot says: a typed scalar, or an array's
 * data pointer with its extents and strides (the ABI of `@cuda-js/jit`'s
 * kernels), so that one packer serves the whole stack.
 */
export class LaunchPlan {
  readonly name: string;
  readonly handle: bigint;
  readonly parameters: readonly KernelParameter[];
  /** The argument layout the plan was made with, if any. */
  readonly layout: ArgumentLayout | undefined;
  readonly #slots: readonly PlannedSlot[] | undefined;
  readonly #view: DataView;
  readonly #bytes: number;
  readonly #offsets: Int32Array;
  readonly #sizes: Int32Array;
  /** Per argument, the bigint, Buffer or view whose value the parameter buffer holds from the last launch. */
  readonly #lastPointerArgs: unknown[];
  /** Per argument, the frozen CUDA array interface answer whose address is in place. */
  readonly #lastAnswers: (CudaArrayInterface | undefined)[];
  /** Per argument, the implicit view made at the last launch (its producer's export is held until the next). */
  readonly #held: (StridedMemoryView | undefined)[];
  readonly #params: KernelParams | null;
  readonly #kind: 'kernel' | 'function';
  /** The handle as cuLaunchKernel takes it: a CUkernel is accepted where a CUfunction is. */
  readonly #launchHandle: CUfunction;
  readonly #kernelObject: { checkOpen?(): void } | undefined;
  readonly #contexts = new Map<bigint, KernelContextChecks>();
  #current: KernelContextChecks | undefined;

  constructor(kernel: KernelArgument, layout?: ArgumentLayout) {
    const k = typeof kernel === 'bigint' ? { handle: kernel } : kernel;
    if (typeof k !== 'object' || k === null || typeof k.handle !== 'bigint') {
      throw new TypeError('launch: kernel must be a Kernel (from @cuda-js/program), an object with a bigint handle, or a bigint CUkernel');
    }
    this.handle = k.handle;
    this.#kind = k.handleKind ?? 'kernel';
    this.#launchHandle = k.handle as CUfunction;
    this.#kernelObject = typeof kernel === 'object' && typeof kernel.checkOpen === 'function' ? kernel : undefined;
    this.name = k.name ?? `kernel 0x${k.handle.toString(16)}`;
    this.parameters = k.parameters ?? readKernelParameters(k.handle, this.#kind);
    this.layout = layout;
    this.#slots = layout === undefined ? undefined : planLayout(layout, this.parameters, this.name);
    const last = this.parameters.at(-1);
    this.#bytes = last ? last.offset + last.size : 0;
    const buffer = new ArrayBuffer(Math.max(8, this.#bytes + 8));
    this.#view = new DataView(buffer);
    this.#offsets = Int32Array.from(this.parameters, (p) => p.offset);
    this.#sizes = Int32Array.from(this.parameters, (p) => p.size);
    const args = this.#slots?.length ?? this.parameters.length;
    this.#lastPointerArgs = new Array<unknown>(args).fill(undefined);
    this.#lastAnswers = new Array<CudaArrayInterface | undefined>(args).fill(undefined);
    this.#held = new Array<StridedMemoryView | undefined>(args).fill(undefined);
    this.#params = this.parameters.length
      ? driver.createKernelParams(
          buffer,
          this.parameters.map((p) => p.offset),
        )
      : null;
  }

  /** How many JS arguments a launch takes. */
  get argumentCount(): number {
    return this.#slots?.length ?? this.parameters.length;
  }

  /** The device of the context this plan last launched or prepared in (undefined before). */
  get device(): Device | undefined {
    return this.#current?.device;
  }

  /**
   * The parameter buffer as the last {@link pack} left it (a copy), for
   * tests and debugging: each parameter at its offset, little-endian.
   */
  get parameterBytes(): Uint8Array {
    return new Uint8Array(this.#view.buffer, 0, this.#bytes).slice();
  }

  /**
   * The checks of the current context: one query of the current context per
   * launch; a new context gets its own checks, and arguments are checked
   * again against its device.
   */
  #enter(): KernelContextChecks {
    ensureDriver();
    const context = driver.cuCtxGetCurrent() as bigint;
    const current = this.#current;
    if (current !== undefined && current.context === context) return current;
    if (context === 0n) throw new LaunchConfigError(`${this.name}: no current CUDA context; call device.setCurrent() first`);
    let checks = this.#contexts.get(context);
    if (checks === undefined) this.#contexts.set(context, (checks = new KernelContextChecks(context, this.handle, this.#kind, this.name)));
    this.#current = checks;
    this.#forgetArguments();
    return checks;
  }

  #forgetArguments(): void {
    this.#lastPointerArgs.fill(undefined);
    this.#lastAnswers.fill(undefined);
    this.#held.fill(undefined);
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

  /** {@link prepare}, {@link pack} and {@link launch}: a whole launch, one native launch call. */
  run(config: LaunchConfig | LaunchConfigOptions, stream: bigint, args: readonly unknown[]): void {
    const cfg = this.prepare(config, stream);
    this.pack(args, stream);
    this.launch(cfg, stream);
  }

  /**
   * Writes the arguments into the parameter buffer, for a launch on `stream`
   * (a CUstream). An argument that is the same as in the last launch is not
   * written again (a view's stream is still ordered before the launch).
   */
  pack(args: readonly unknown[], stream: bigint): void {
    const slots = this.#slots;
    if (slots === undefined) this.#packParameters(args, stream);
    else this.#packSlots(slots, args, stream);
  }

  #countError(given: number, expected: number): LaunchArgumentError {
    return new LaunchArgumentError(this.name, Math.min(given, expected), `the kernel takes ${expected} argument(s), ${given} were given`);
  }

  /** One argument per parameter, each checked by size. */
  #packParameters(args: readonly unknown[], stream: bigint): void {
    const count = this.#offsets.length;
    if (args.length !== count) throw this.#countError(args.length, count);
    const view = this.#view;
    const offsets = this.#offsets;
    const sizes = this.#sizes;
    const last = this.#lastPointerArgs;
    const lastAnswers = this.#lastAnswers;
    const consumer = resolveStream(stream)!;
    const ordinal = this.#current?.device.ordinal ?? -1;
    for (let i = 0; i < count; i++) {
      const arg = args[i];
      const offset = offsets[i]!;
      const size = sizes[i]!;
      // The same bigint, Buffer, view or frozen CUDA array interface answer as in the last launch: the bytes are in place.
      const previous = last[i];
      if (previous !== undefined && arg === previous) {
        const answer = lastAnswers[i];
        if (answer === undefined) {
          if (typeof previous === 'bigint') continue;
          if (previous instanceof StridedMemoryView) {
            if (!previous.closed) {
              orderView(previous, consumer, stream);
              continue;
            }
          } else if (!(previous as Buffer).closed) {
            continue;
          }
        } else if ((previous as CudaArrayInterfaceObject)[CUDA_ARRAY_INTERFACE]() === answer) {
          continue;
        }
      }
      last[i] = undefined;
      lastAnswers[i] = undefined;
      if (arg instanceof Buffer) {
        if (size !== 8) throw this.#sizeError(i, 'a Buffer (a pointer, 8 bytes)', size);
        if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the Buffer is closed');
        if (!arg.isDeviceAccessible) throw new LaunchArgumentError(this.name, i, 'the Buffer is not accessible from the device');
        view.setBigUint64(offset, checkedAddress(arg.ptr, this.name, i), true);
        last[i] = arg;
      } else if (arg instanceof Scalar) {
        if (size !== arg.size) throw this.#sizeError(i, `${arg} (${arg.size} bytes)`, size);
        arg.writeTo(view, offset);
      } else if (typeof arg === 'bigint') {
        if (size !== 8) throw this.#sizeError(i, 'a bigint (8 bytes)', size);
        if (arg < MIN_INT64 || arg > MAX_UINT64) throw new LaunchArgumentError(this.name, i, `${arg} does not fit in 64 bits`);
        view.setBigUint64(offset, arg < 0n ? BigInt.asUintN(64, arg) : arg, true);
        last[i] = arg;
      } else if (typeof arg === 'number') {
        this.#packNumber(i, arg, offset, size);
      } else if (typeof arg === 'object' && arg !== null) {
        if (size !== 8) throw this.#sizeError(i, 'an array (a pointer, 8 bytes)', size);
        if (hasCudaArrayInterface(arg) && !(arg instanceof StridedMemoryView)) {
          const answer = arg[CUDA_ARRAY_INTERFACE]();
          view.setBigUint64(offset, interfaceAddress(answer, stream, this.name, i), true);
          if (isReusableAnswer(answer)) {
            last[i] = arg;
            lastAnswers[i] = answer;
          }
        } else {
          view.setBigUint64(offset, viewAddress(arg, stream, consumer, ordinal, this.name, i), true);
          if (arg instanceof StridedMemoryView) last[i] = arg;
        }
      } else {
        throw new LaunchArgumentError(this.name, i, `cannot pass ${arg === null ? 'null' : typeof arg}; use a Buffer, an array, a bigint address or a typed scalar such as i32(x), f32(x)`);
      }
    }
  }

  /**
   * A plain number is a 32-bit signed integer, and only for a 4-byte parameter:
   * never a float (say f32(x)), never 64-bit and never a pointer (say i64(x) or
   * pass a bigint), so that a wrong type cannot pass silently.
   */
  #packNumber(i: number, arg: number, offset: number, size: number): void {
    if (size !== 4) throw this.#sizeError(i, `the number ${arg} (a plain number is an i32, 4 bytes; use i64(), f64(), a bigint or an array for 8)`, size);
    if (!Number.isInteger(arg)) throw new LaunchArgumentError(this.name, i, `${arg} is not an integer; a plain number is an i32, so say f32(${arg}) for a float`);
    if (arg < -(2 ** 31) || arg > 2 ** 31 - 1) throw new LaunchArgumentError(this.name, i, `${arg} does not fit in an i32; use u32() or i64()`);
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
    const ordinal = this.#current?.device.ordinal ?? -1;
    for (let i = 0; i < count; i++) {
      const slot = slots[i]!;
      const arg = args[i];
      const type = slot.scalarType;
      if (type !== undefined) {
        if (!writeScalarValue(view, offsets[slot.first]!, type, arg)) throw new LaunchArgumentError(this.name, i, scalarMismatch(type, arg), slot.name);
      } else {
        this.#packArray(i, slot, arg, stream, consumer, ordinal);
      }
    }
  }

  #packArray(i: number, slot: PlannedSlot, arg: unknown, stream: bigint, consumer: bigint, ordinal: number): void {
    const last = this.#lastPointerArgs;
    if (arg instanceof StridedMemoryView) {
      if (arg === last[i]) {
        // unchanged: its pointer, extents and strides are in place; only its stream is ordered again
        if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the view is closed', slot.name);
        orderView(arg, consumer, stream);
        return;
      }
      last[i] = undefined;
      if (arg.closed) throw new LaunchArgumentError(this.name, i, 'the view is closed', slot.name);
      this.#writeView(i, slot, arg, ordinal);
      orderView(arg, consumer, stream);
      last[i] = arg;
      return;
    }
    if (arg instanceof Buffer) {
      if (arg === last[i] && !arg.closed) return;
      last[i] = undefined;
      this.#writeBuffer(i, slot, arg, ordinal);
      last[i] = arg;
      return;
    }
    if (typeof arg !== 'object' || arg === null) {
      throw new LaunchArgumentError(this.name, i, `cannot pass ${arg === null ? 'null' : typeof arg} as an array; pass a StridedMemoryView or any DLPack or CUDA array interface object`, slot.name);
    }
    if (hasCudaArrayInterface(arg)) {
      const answer = arg[CUDA_ARRAY_INTERFACE]();
      if (arg === last[i] && answer === this.#lastAnswers[i]) return;
      last[i] = undefined;
      this.#lastAnswers[i] = undefined;
      const view = implicitView(arg, consumer, this.name, i, slot.name);
      this.#writeView(i, slot, view, ordinal);
      this.#held[i] = view;
      if (isReusableAnswer(answer)) {
        last[i] = arg;
        this.#lastAnswers[i] = answer;
      }
      return;
    }
    last[i] = undefined;
    const view = implicitView(arg, consumer, this.name, i, slot.name);
    this.#writeView(i, slot, view, ordinal);
    this.#held[i] = view;
  }

  /** Checks a view against its slot and writes its pointer, extents and strides. */
  #writeView(i: number, slot: PlannedSlot, view: StridedMemoryView, ordinal: number): void {
    const name = slot.name;
    checkViewDevice(view, ordinal, this.name, i, name);
    const ndim = slot.ndim;
    const shape = view.shape;
    if (shape.length !== ndim) throw new LaunchArgumentError(this.name, i, `the array has ${shape.length} dimension(s), the kernel takes ${ndim}`, name);
    if (slot.dtype !== undefined && view.dtype !== slot.dtype) throw new LaunchArgumentError(this.name, i, `the array holds ${view.dtype.name}, the kernel takes ${slot.dtype.name}`, name);
    if (slot.layout === 'C' ? !view.isCContiguous : slot.layout === 'F' && !view.isFContiguous) {
      throw new LaunchArgumentError(this.name, i, `the kernel takes a ${slot.layout}-contiguous array; this one has strides [${view.strides.join(', ')}] for shape [${shape.join(', ')}]`, name);
    }
    if (slot.writable && view.readonly) throw new LaunchArgumentError(this.name, i, 'the kernel writes the array, and the view is read-only', name);
    const data = this.#view;
    const offsets = this.#offsets;
    let p = slot.first;
    data.setBigUint64(offsets[p++]!, checkedAddress(view.ptr, this.name, i, name), true);
    if (slot.shape) for (let d = 0; d < ndim; d++) writeInt64(data, offsets[p++]!, checkedExtent(shape[d], this.name, i, name, false));
    if (slot.strides) {
      const strides = view.strides;
      for (let d = 0; d < ndim; d++) writeInt64(data, offsets[p++]!, checkedExtent(strides[d], this.name, i, name, true));
    }
  }

  /** A Buffer in an array slot is its bytes: uint8, 1-D, compact. */
  #writeBuffer(i: number, slot: PlannedSlot, buffer: Buffer, ordinal: number): void {
    const name = slot.name;
    if (buffer.closed) throw new LaunchArgumentError(this.name, i, 'the Buffer is closed', name);
    if (!buffer.isDeviceAccessible) throw new LaunchArgumentError(this.name, i, 'the Buffer is not accessible from the device', name);
    if (slot.ndim !== 1 || (slot.dtype !== undefined && slot.dtype !== UINT8)) {
      const want = `${slot.dtype?.name ?? 'an'} array of ${slot.ndim} dimension(s)`;
      throw new LaunchArgumentError(
        this.name,
        i,
        `a Buffer is bytes (uint8, 1-D), the kernel takes ${want}; pass a typed view of it: StridedMemoryView.fromAny(buffer, { stream }).view({ dtype, shape })`,
        name,
      );
    }
    const device = buffer.device;
    if (ordinal >= 0 && device !== undefined && !buffer.isHostAccessible && device.ordinal !== ordinal) {
      throw new LaunchArgumentError(this.name, i, `the Buffer lives on CUDA device ${device.ordinal}, but the launch is on device ${ordinal}`, name);
    }
    const data = this.#view;
    const offsets = this.#offsets;
    let p = slot.first;
    data.setBigUint64(offsets[p++]!, checkedAddress(buffer.ptr, this.name, i, name), true);
    if (slot.shape) writeInt64(data, offsets[p++]!, buffer.size);
    if (slot.strides) writeInt64(data, offsets[p++]!, 1);
  }

  /** Launches with the packed arguments: one native call. */
  launch(config: LaunchConfig, stream: bigint): void {
    const [gx, gy, gz] = config.grid;
    const [bx, by, bz] = config.block;
    const hStream = stream as CUstream;
    if (!config.cluster && !config.cooperative) {
      driver.cuLaunchKernel(this.#launchHandle, gx, gy, gz, bx, by, bz, config.sharedMemory, hStream, this.#params);
      return;
    }
    const ids = driver.CUlaunchAttributeID;
    const attrs: { id: number; value: DriverTypes.CUlaunchAttributeValue }[] = [];
    if (config.cooperative) attrs.push({ id: ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, value: { cooperative: 1 } });
    if (config.cluster) {
      const [x, y, z] = config.cluster;
      attrs.push({ id: ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, value: { clusterDim: { x, y, z } } });
    }
    driver.cuLaunchKernelEx(
      { gridDimX: gx, gridDimY: gy, gridDimZ: gz, blockDimX: bx, blockDimY: by, blockDimZ: bz, sharedMemBytes: config.sharedMemory, hStream, attrs },
      this.#launchHandle,
      this.#params,
    );
  }
}
