import { driver, type CUstream, type DriverTypes } from '@cuda-js/bindings';
import { Buffer } from './buffer.js';
import { Device } from './device.js';
import { LaunchArgumentError, LaunchConfigError } from './errors.js';
import { readKernelParameters, type KernelArgument, type KernelParameter } from './kernel-parameters.js';
import type { LaunchConfig } from './launch-config.js';
import { Scalar } from './scalar.js';
import { CUDA_ARRAY_INTERFACE, StridedMemoryView, type CudaArrayInterface } from '@cuda-js/memory-view';
import { hasCudaArrayInterface, type CudaArrayInterfaceObject, interfaceAddress, isReusableAnswer, viewAddress } from './array-argument.js';

const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

// CUfunction_attribute values of cuda.h
const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
// CUlaunchAttributeID values of cuda.h
const CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2;
const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

/**
 * Everything about launching one kernel that is worked out once: its handle,
 * its parameter layout, a reusable parameter buffer with the native pointer
 * table over it, and the configs already checked against the device.
 */
export class LaunchPlan {
  readonly name: string;
  readonly handle: bigint;
  readonly parameters: readonly KernelParameter[];
  readonly #view: DataView;
  readonly #offsets: Int32Array;
  readonly #sizes: Int32Array;
  /** Per position, the bigint, Buffer or view whose value the parameter buffer holds from the last launch. */
  readonly #lastPointerArgs: unknown[];
  /** Per position, the frozen CUDA array interface answer whose address is in place. */
  readonly #lastAnswers: (CudaArrayInterface | undefined)[];
  readonly #params: unknown;
  readonly #checked = new WeakSet<LaunchConfig>();
  readonly #checkedStreams = new Set<bigint>();
  readonly #kind: 'kernel' | 'function';
  #sharedMemoryAllowed = 48 * 1024;

  constructor(kernel: KernelArgument) {
    const k = typeof kernel === 'bigint' ? { handle: kernel } : kernel;
    if (typeof k !== 'object' || k === null || typeof k.handle !== 'bigint') {
      throw new TypeError('launch: kernel must be a Kernel (from @cuda-js/program), an object with a bigint handle, or a bigint CUkernel');
    }
    this.handle = k.handle;
    this.#kind = k.handleKind ?? 'kernel';
    this.name = k.name ?? `kernel 0x${k.handle.toString(16)}`;
    this.parameters = k.parameters ?? readKernelParameters(k.handle, this.#kind);
    const last = this.parameters.at(-1);
    const bytes = last ? last.offset + last.size : 0;
    const buffer = new ArrayBuffer(Math.max(8, bytes + 8));
    this.#view = new DataView(buffer);
    this.#offsets = Int32Array.from(this.parameters, (p) => p.offset);
    this.#sizes = Int32Array.from(this.parameters, (p) => p.size);
    this.#lastPointerArgs = new Array<unknown>(this.parameters.length).fill(undefined);
    this.#lastAnswers = new Array<CudaArrayInterface | undefined>(this.parameters.length).fill(undefined);
    this.#params = this.parameters.length ? driver.createKernelParams(buffer, this.parameters.map((p) => p.offset)) : null;
  }

  /** The CUfunction of this kernel in the current context (for attributes and occupancy). */
  #function(): bigint {
    return this.#kind === 'kernel' ? (driver.cuKernelGetFunction(this.handle as never) as bigint) : this.handle;
  }

  /**
   * Checks, once per stream, that the stream belongs to the current context:
   * a stream of another context would fail at launch with an unhelpful
   * CUDA_ERROR_INVALID_HANDLE, or worse, order work wrongly.
   */
  checkStream(stream: bigint): void {
    if (stream <= 2n || this.#checkedStreams.has(stream)) return; // 0, legacy and per-thread default streams belong to every context
    const streamContext = driver.cuStreamGetCtx(stream as never) as bigint;
    const current = driver.cuCtxGetCurrent() as bigint;
    if (streamContext !== current) {
      throw new LaunchConfigError(`${this.name}: the stream 0x${stream.toString(16)} belongs to context 0x${streamContext.toString(16)}, not to the current context 0x${current.toString(16)}; make its device current first`);
    }
    this.#checkedStreams.add(stream);
  }

  /** Checks a config against the current device and this kernel, once per config object. */
  check(config: LaunchConfig): void {
    if (this.#checked.has(config)) return;
    const device = Device.current();
    if (!device) throw new LaunchConfigError(`${this.name}: no current CUDA context; call device.setCurrent() first`);
    const a = device.attributes;
    const [bx, by, bz] = config.block;
    const [gx, gy, gz] = config.grid;
    if (bx > a.maxBlockDimX || by > a.maxBlockDimY || bz > a.maxBlockDimZ) {
      throw new LaunchConfigError(`${this.name}: block ${config.block.join('x')} exceeds the device's ${a.maxBlockDimX}x${a.maxBlockDimY}x${a.maxBlockDimZ}`);
    }
    const fn = this.#function();
    const kernelMax = driver.cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn as never) as number;
    const limit = Math.min(a.maxThreadsPerBlock, kernelMax);
    if (config.threadsPerBlock > limit) {
      throw new LaunchConfigError(`${this.name}: block of ${config.threadsPerBlock} threads exceeds the limit of ${limit} (device ${a.maxThreadsPerBlock}, kernel ${kernelMax})`);
    }
    if (gx > a.maxGridDimX || gy > a.maxGridDimY || gz > a.maxGridDimZ) {
      throw new LaunchConfigError(`${this.name}: grid ${config.grid.join('x')} exceeds the device's ${a.maxGridDimX}x${a.maxGridDimY}x${a.maxGridDimZ}`);
    }
    if (config.cluster) {
      const { major, minor } = device.computeCapability;
      if (major < 9) throw new LaunchConfigError(`${this.name}: thread-block clusters need compute capability 9.0 or newer; ${device.name} is ${major}.${minor}`);
    }
    if (config.sharedMemory > a.maxSharedMemoryPerBlockOptin) {
      throw new LaunchConfigError(`${this.name}: ${config.sharedMemory} bytes of shared memory exceed the device's ${a.maxSharedMemoryPerBlockOptin} per block`);
    }
    if (config.sharedMemory > this.#sharedMemoryAllowed) {
      // above 48 KiB a kernel must opt in; do it for the user, as the limit was checked above
      driver.cuFuncSetAttribute(fn as never, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, config.sharedMemory);
      this.#sharedMemoryAllowed = config.sharedMemory;
    }
    if (config.cooperative) {
      const perSm = driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn as never, config.threadsPerBlock, config.sharedMemory) as number;
      const coResident = perSm * a.multiprocessorCount;
      if (config.blocks > coResident) {
        throw new LaunchConfigError(`${this.name}: a cooperative grid of ${config.blocks} blocks exceeds the ${coResident} that can be co-resident (${perSm} per SM x ${a.multiprocessorCount} SMs)`);
      }
    }
    this.#checked.add(config);
  }

  /** Writes the arguments into the parameter buffer. */
  pack(args: readonly unknown[], stream: bigint): void {
    const count = this.#offsets.length;
    if (args.length !== count) {
      throw new LaunchArgumentError(this.name, Math.min(args.length, count), `the kernel takes ${count} argument(s), ${args.length} were given`);
    }
    const view = this.#view;
    const offsets = this.#offsets;
    const sizes = this.#sizes;
    const last = this.#lastPointerArgs;
    const lastAnswers = this.#lastAnswers;
    for (let i = 0; i < count; i++) {
      const arg = args[i];
      const offset = offsets[i]!;
      const size = sizes[i]!;
      // The same Buffer or view as in the last launch: its address is already in place.
      const previous = last[i];
      if (previous !== undefined && arg === previous) {
        // A bigint already written, a Buffer or view still open, or the same frozen CUDA array interface answer: the bytes are in place.
        const answer = lastAnswers[i];
        if (answer === undefined) {
          if (typeof previous === 'bigint' || !(previous as Buffer | StridedMemoryView).closed) continue;
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
        view.setBigUint64(offset, arg.ptr, true);
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
        if (hasCudaArrayInterface(arg)) {
          const answer = arg[CUDA_ARRAY_INTERFACE]();
          view.setBigUint64(offset, interfaceAddress(answer, stream, this.name, i), true);
          if (isReusableAnswer(answer)) {
            last[i] = arg;
            lastAnswers[i] = answer;
          }
        } else {
          view.setBigUint64(offset, viewAddress(arg, stream, this.name, i), true);
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

  /** Launches with the packed arguments: one native call. */
  launch(config: LaunchConfig, stream: bigint): void {
    const [gx, gy, gz] = config.grid;
    const [bx, by, bz] = config.block;
    if (!config.cluster && !config.cooperative) {
      driver.cuLaunchKernel(this.handle as never, gx, gy, gz, bx, by, bz, config.sharedMemory, stream as never, this.#params as never);
      return;
    }
    const attrs: { id: number; value: DriverTypes.CUlaunchAttributeValue }[] = [];
    if (config.cooperative) attrs.push({ id: CU_LAUNCH_ATTRIBUTE_COOPERATIVE, value: { cooperative: 1 } });
    if (config.cluster) {
      const [x, y, z] = config.cluster;
      attrs.push({ id: CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, value: { clusterDim: { x, y, z } } });
    }
    driver.cuLaunchKernelEx(
      { gridDimX: gx, gridDimY: gy, gridDimZ: gz, blockDimX: bx, blockDimY: by, blockDimZ: bz, sharedMemBytes: config.sharedMemory, hStream: stream as CUstream, attrs },
      this.handle as never,
      this.#params as never,
    );
  }
}
