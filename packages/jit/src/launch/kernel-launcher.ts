import {
  Buffer,
  isLaunchConfigKey,
  LaunchArgumentError,
  LaunchConfig,
  LaunchPlan,
  type LaunchBatch,
  type LaunchConfigOptions,
} from '@cuda-js/core';
import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, isCudaAccessible, StridedMemoryView } from '@cuda-js/memory-view';
import type { Kernel } from '@cuda-js/program';
import { Stream, streamHandle, type StreamArgument } from '@cuda-js/streams';
import { JitError, KernelArgumentError } from '../errors.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { argumentCountError, argumentError } from './argument-error.js';
import { forallConfig } from './forall.js';
import { HostArrayStaging } from './host-array-staging.js';
import { kernelArgumentLayout } from './kernel-argument-layout.js';
import { enterLaunchDevice } from './launch-device.js';

export interface ForallOptions {
  /** Threads per block (default: the block size of highest occupancy, {@link KernelLauncher.occupancyBlockSize}). */
  readonly block?: number;
  /** Dynamic shared memory per block, in bytes (default 0). */
  readonly sharedMemory?: number;
}

/** A plain config without the JIT's own keys (`stream`, `batch`); the config itself where it has neither. */
export function withoutStream(
  config: LaunchConfigOptions & { readonly stream?: unknown; readonly batch?: unknown },
): LaunchConfigOptions {
  if (!('stream' in config || 'batch' in config)) return config;
  const { stream: _stream, batch: _batch, ...rest } = config;
  return rest;
}

/** Whether a plain config names only LaunchConfig's options (core's list), `stream` and `batch` (read without making an array). */
export function hasOnlyLaunchKeys(config: object): boolean {
  for (const key in config) {
    if (key !== 'stream' && key !== 'batch' && !isLaunchConfigKey(key)) return false;
  }
  return true;
}

/** A config object reused from launch to launch: a plain config's fields without `stream`, with no allocation. */
interface ConfigScratch {
  grid: LaunchConfigOptions['grid'];
  block: LaunchConfigOptions['block'];
  cluster: LaunchConfigOptions['cluster'];
  sharedMemory: number | undefined;
  cooperative: boolean | undefined;
}

/** A host array argument, viewed, and whether the view was made here (to be closed). */
interface HostArray {
  readonly view: StridedMemoryView;
  readonly owned: boolean;
}

/**
 * The host array that `arg` is, or undefined when it is device memory (or
 * not an array: the packer says what is wrong with it). Cheap for device
 * arrays: a StridedMemoryView's flag, an `in` check for protocol objects.
 */
function hostArrayOf(arg: unknown): HostArray | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  if (arg instanceof StridedMemoryView) return arg.isDeviceAccessible ? undefined : { view: arg, owned: false };
  if (ArrayBuffer.isView(arg)) return { view: StridedMemoryView.fromTypedArray(arg), owned: false };
  if (DLPACK in arg) {
    const device = (arg as { [DLPACK_DEVICE]?: () => readonly [number, number] })[DLPACK_DEVICE];
    if (typeof device === 'function' && isCudaAccessible(device.call(arg)[0])) return undefined;
    return { view: StridedMemoryView.fromAny(arg, { stream: -1 }), owned: true };
  }
  if (CUDA_ARRAY_INTERFACE in arg || arg instanceof Buffer) return undefined;
  return { view: StridedMemoryView.fromAny(arg), owned: false };
}

export interface KernelLauncherOptions {
  /** Launch cooperatively every time (a kernel that syncs its grid). */
  readonly cooperative?: boolean;
}

/**
 * Launches one compiled specialization of a JIT kernel: built once per
 * signature from the program `Kernel` (the loaded CUkernel) and the typed
 * kernel's parameters, it packs through core's {@link LaunchPlan} (one
 * native launch call; unchanged views are not written again).
 *
 * Host arrays (typed arrays, host StridedMemoryViews, ndarrays, ...) are
 * copied to the device before the launch and, where the kernel writes
 * them, back after it, with a stream synchronize first, as numba does with
 * NumPy arrays; a warning says so once per argument.
 *
 * A plain config's keys are the caller's to check ({@link hasOnlyLaunchKeys},
 * the kernel's `launch` refuses any other): the launcher reads only
 * LaunchConfig's fields of it, so it checks nothing twice on the hot path.
 */
export class KernelLauncher {
  readonly name: string;
  readonly params: readonly KernelParam[];
  /** Every launch is cooperative, whatever the config says: the kernel syncs its whole grid (numba's dispatcher does the same). */
  readonly cooperative: boolean;
  readonly #kernel: Kernel;
  readonly #plan: LaunchPlan;
  readonly #names: readonly string[];
  readonly #scratch: ConfigScratch = {
    grid: 1,
    block: 1,
    cluster: undefined,
    sharedMemory: undefined,
    cooperative: undefined,
  };
  /** Indices of the array parameters. */
  readonly #arrays: readonly number[];
  /** Per array parameter, the argument last found to be device memory. */
  readonly #deviceArrays: unknown[] = [];
  readonly #warned = new Set<number>();
  readonly #blockSizes = new Map<string, number>();

  /**
   * @param kernel the loaded kernel of one signature
   * @param params the typed kernel's parameters (their ABI: TypedKernel's)
   * @param name the kernel's name in messages (default: the Kernel's)
   * @param options `cooperative`: every launch is cooperative (the kernel syncs its grid)
   * @throws {JitError} when the kernel's parameters (as the driver reports them) do not match `params`
   */
  constructor(
    kernel: Kernel,
    params: readonly KernelParam[],
    name: string = kernel.name,
    options: KernelLauncherOptions = {},
  ) {
    this.name = name;
    this.cooperative = options.cooperative ?? false;
    this.params = params;
    this.#kernel = kernel;
    this.#names = params.map((p) => p.name);
    this.#arrays = params.flatMap((p, i) => (p.kind === 'array' ? [i] : []));
    try {
      this.#plan = new LaunchPlan(
        { handle: kernel.handle, name: this.name, parameters: kernel.parameters, checkOpen: () => kernel.checkOpen() },
        kernelArgumentLayout(params),
      );
    } catch (error) {
      if (error instanceof LaunchArgumentError || error instanceof TypeError) {
        throw new JitError(
          `${this.name}: the compiled kernel's parameters do not match its signature (${error.message})`,
          undefined,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * Launches on `stream` (default: the default stream) with `config` (a
   * plain `{ grid, block }` is matched to a cached, already checked config;
   * a `stream` key in it, as a JIT kernel's launch options have, is not
   * part of the config: `stream` is the one launched on).
   *
   * @throws {KernelArgumentError} for a wrong count, an argument that does not fit its parameter, device memory of another device, or host memory that cannot be copied
   */
  launch(
    config: LaunchConfig | LaunchConfigOptions,
    stream: StreamArgument | undefined,
    args: readonly unknown[],
  ): void {
    const names = this.#names;
    if (args.length !== names.length) throw argumentCountError(names, args.length);
    config = this.#coreConfig(config);
    const handle =
      stream === undefined
        ? 0n
        : stream instanceof Stream
          ? stream.handle
          : streamHandle(stream, `${this.name}: stream`);
    // with several devices: the device the arrays (or the stream) live on, current before the plan reads the context
    enterLaunchDevice(names, args, this.#arrays, handle);
    const plan = this.#plan;
    if (this.#firstHostArray(args) === -1) {
      // device memory only: core's whole launch, one native call that also checks the context
      try {
        plan.run(config, handle, args);
      } catch (error) {
        if (error instanceof LaunchArgumentError)
          throw new KernelArgumentError(error.message, undefined, { cause: error });
        throw error;
      }
      return;
    }
    const cfg = plan.prepare(config, handle);
    let staging: HostArrayStaging | undefined;
    try {
      const arrays = this.#arrays;
      for (let j = 0; j < arrays.length; j++) {
        const i = arrays[j]!;
        const arg = args[i];
        let host: HostArray | undefined;
        try {
          host = hostArrayOf(arg);
        } catch (error) {
          throw argumentError(names, i, `not an array that cuda-js can view (${(error as Error).message})`, error);
        }
        if (host === undefined) continue;
        const param = this.params[i]!;
        const written = param.kind === 'array' && param.use.written;
        this.#warnHostArray(i, written);
        staging ??= new HostArrayStaging(args, plan.device!, handle, names);
        try {
          staging.stage(i, arg, host.view, written, host.owned);
        } catch (error) {
          if (host.owned) host.view.close();
          throw argumentError(
            names,
            i,
            `the host array could not be copied to the device (${(error as Error).message})`,
            error,
          );
        }
      }
      this.#pack(staging === undefined ? args : staging.args, handle);
      plan.launch(cfg, handle);
    } catch (error) {
      staging?.release();
      throw error;
    }
    staging?.finish(stream ?? handle);
  }

  /**
   * The index of the first array argument that is host memory (to be
   * staged), or -1. An argument found to be device memory is remembered per
   * position, so that the same one again is not looked at; an argument that
   * cannot be viewed counts as host memory, for the staging path's clear error.
   */
  #firstHostArray(args: readonly unknown[]): number {
    const arrays = this.#arrays;
    const known = this.#deviceArrays;
    for (let j = 0; j < arrays.length; j++) {
      const i = arrays[j]!;
      const arg = args[i];
      if (arg === known[j] && arg !== undefined) continue;
      let host: HostArray | undefined;
      try {
        host = hostArrayOf(arg);
      } catch {
        return i;
      }
      if (host !== undefined) {
        if (host.owned) host.view.close();
        return i;
      }
      known[j] = arg;
    }
    return -1;
  }

  /**
   * Records the launch into `batch` (core's `launchBatch`), on the
   * batch's stream, in the batch's context: device memory only (a host array
   * is copied with a stream synchronize, which a batch cannot hold back).
   *
   * @throws {KernelArgumentError} as {@link launch} does, and for a host array
   */
  launchIn(batch: LaunchBatch, config: LaunchConfig | LaunchConfigOptions, args: readonly unknown[]): void {
    const names = this.#names;
    if (args.length !== names.length) throw argumentCountError(names, args.length);
    config = this.#coreConfig(config);
    const host = this.#firstHostArray(args);
    if (host !== -1) {
      throw argumentError(
        names,
        host,
        'is a host array, which a launch batch cannot take (it is copied with a stream synchronize); pass device memory, or launch it outside the batch',
      );
    }
    try {
      batch.launchPlan(this.#plan, config, args);
    } catch (error) {
      if (error instanceof LaunchArgumentError)
        throw new KernelArgumentError(error.message, undefined, { cause: error });
      throw error;
    }
  }

  /**
   * Core's config of a launch: cooperative if the kernel is; a plain config's
   * fields without the JIT's own keys (`stream`, `batch`), copied into a
   * reused object (LaunchConfig.from copies what it keeps).
   */
  #coreConfig(config: LaunchConfig | LaunchConfigOptions): LaunchConfig | LaunchConfigOptions {
    if (this.cooperative) return this.#cooperativeConfig(config);
    if (
      config instanceof LaunchConfig ||
      config === null ||
      typeof config !== 'object' ||
      !('stream' in config || 'batch' in config)
    )
      return config;
    const scratch = this.#scratch;
    scratch.grid = config.grid;
    scratch.block = config.block;
    scratch.cluster = config.cluster;
    scratch.sharedMemory = config.sharedMemory;
    scratch.cooperative = config.cooperative;
    return scratch as LaunchConfigOptions;
  }

  /** `config` made cooperative: core then checks, before the launch, that the grid can be co-resident. */
  #cooperativeConfig(config: LaunchConfig | LaunchConfigOptions): LaunchConfig | LaunchConfigOptions {
    if (config instanceof LaunchConfig) {
      if (config.cooperative) return config;
      return LaunchConfig.from({
        grid: config.grid,
        block: config.block,
        cluster: config.cluster,
        sharedMemory: config.sharedMemory,
        cooperative: true,
      });
    }
    if (config === null || typeof config !== 'object') return config; // refused by prepare, with its clear error
    const scratch = this.#scratch;
    scratch.grid = config.grid;
    scratch.block = config.block;
    scratch.cluster = config.cluster;
    scratch.sharedMemory = config.sharedMemory;
    scratch.cooperative = true;
    return scratch as LaunchConfigOptions;
  }

  #pack(args: readonly unknown[], handle: bigint): void {
    try {
      this.#plan.pack(args, handle);
    } catch (error) {
      if (error instanceof LaunchArgumentError)
        throw new KernelArgumentError(error.message, undefined, { cause: error });
      throw error;
    }
  }

  #warnHostArray(index: number, written: boolean): void {
    if (this.#warned.has(index)) return;
    this.#warned.add(index);
    process.emitWarning(
      `kernel '${this.name}': argument '${this.#names[index]}' is a host array; it is copied to the device before each launch` +
        `${written ? ' and back after it (with a stream synchronize)' : ''}. Pass device memory (a view of a device Buffer, or any CUDA array) to avoid the copies.`,
      { type: 'CudaJsPerformanceWarning', code: 'CUDA_JS_HOST_ARRAY_COPY' },
    );
  }

  /**
   * The block size of highest occupancy for this kernel on the current
   * context's device (`cuOccupancyMaxPotentialBlockSize`), remembered per
   * context and shared-memory size.
   */
  occupancyBlockSize(sharedMemory = 0): number {
    const key = `${this.#kernel.getFunction()}:${sharedMemory}`;
    let size = this.#blockSizes.get(key);
    if (size === undefined) {
      size = this.#kernel.occupancy.maxPotentialBlockSize(sharedMemory).blockSize;
      this.#blockSizes.set(key, size);
    }
    return size;
  }

  /** The config that runs `n` threads (numba's `forall`): blocks of `options.block`, or of {@link occupancyBlockSize}. */
  forall(n: number, options: ForallOptions = {}): LaunchConfig {
    const sharedMemory = options.sharedMemory ?? 0;
    return forallConfig(n, options.block ?? this.occupancyBlockSize(sharedMemory), sharedMemory);
  }
}
