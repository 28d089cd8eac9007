import { driver, type CUfunction, type CUkernel, type CUstream } from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import { deviceAttribute, deviceHandle } from '../context/device-context.js';
import { LaunchConfigError } from '../errors.js';
import type { DeviceAttributeName } from '../generated/device-attributes.js';
import type { LaunchConfig } from './launch-config.js';

/** Dynamic shared memory a kernel may use before it must opt in (cuFuncSetAttribute). */
const DEFAULT_SHARED_MEMORY_LIMIT = 48 * 1024;

/**
 * What one kernel has checked in one CUDA context: the configs it ran with
 * (against that context's device and that context's CUfunction), the streams
 * it ran on, and the dynamic shared memory it opted into. Limits differ by
 * device and an opt-in is per CUfunction, so nothing is shared across contexts.
 */
export class KernelContextChecks {
  /** The ordinal of the context's device. */
  readonly deviceOrdinal: number;
  #function: CUfunction | undefined;
  #kernelMaxThreads: number | undefined;
  #sharedMemoryAllowed = DEFAULT_SHARED_MEMORY_LIMIT;
  readonly #configs = new WeakSet<LaunchConfig>();
  readonly #streams = new Set<bigint>();
  /** The config and stream checked last: a launch in a loop finds them with one comparison. */
  #lastConfig: LaunchConfig | undefined;
  #lastStream: bigint | undefined;

  constructor(
    /** The CUcontext. */
    readonly context: bigint,
    private readonly handle: bigint,
    private readonly kind: 'kernel' | 'function',
    private readonly name: string,
  ) {
    this.deviceOrdinal = driver.cuCtxGetDevice();
  }

  /** The CUfunction of the kernel in this context (for attributes and occupancy). */
  get function(): CUfunction {
    this.#function ??=
      this.kind === 'kernel' ? driver.cuKernelGetFunction(this.handle as CUkernel) : (this.handle as CUfunction);
    return this.#function;
  }

  /**
   * Checks, once per stream, that the stream belongs to this context: a
   * stream of another context would fail at launch with an unhelpful
   * CUDA_ERROR_INVALID_HANDLE, or worse, order work wrongly.
   */
  checkStream(stream: bigint): void {
    if (stream === this.#lastStream) return;
    if (typeof stream !== 'bigint' || stream < 0n || stream >= 1n << 64n) {
      throw new LaunchConfigError(
        `${this.name}: the stream must be a CUstream handle (a bigint in [0, 2^64)), got ${formatValue(stream)}`,
      );
    }
    if (stream <= 2n || this.#streams.has(stream)) {
      this.#lastStream = stream; // 0, legacy and per-thread default streams belong to every context
      return;
    }
    const streamContext = driver.cuStreamGetCtx(stream as CUstream) as bigint;
    if (streamContext !== this.context) {
      throw new LaunchConfigError(
        `${this.name}: the stream 0x${stream.toString(16)} belongs to context 0x${streamContext.toString(16)}, not to the current context 0x${this.context.toString(16)}; make its device current first`,
      );
    }
    this.#streams.add(stream);
    this.#lastStream = stream;
  }

  /** Checks a config against this context's device and the kernel, once per config. */
  checkConfig(config: LaunchConfig): void {
    if (config === this.#lastConfig) return;
    if (this.#configs.has(config)) {
      this.#lastConfig = config;
      return;
    }
    const ordinal = this.deviceOrdinal;
    const a = (name: DeviceAttributeName): number => deviceAttribute(ordinal, name);
    const [bx, by, bz] = config.block;
    const [gx, gy, gz] = config.grid;
    if (bx > a('maxBlockDimX') || by > a('maxBlockDimY') || bz > a('maxBlockDimZ')) {
      throw new LaunchConfigError(
        `${this.name}: block ${config.block.join('x')} exceeds the device's ${a('maxBlockDimX')}x${a('maxBlockDimY')}x${a('maxBlockDimZ')}`,
      );
    }
    const fn = this.function;
    const attribute = driver.CUfunction_attribute;
    this.#kernelMaxThreads ??= driver.cuFuncGetAttribute(attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);
    const kernelMax = this.#kernelMaxThreads;
    const limit = Math.min(a('maxThreadsPerBlock'), kernelMax);
    if (config.threadsPerBlock > limit) {
      throw new LaunchConfigError(
        `${this.name}: block of ${config.threadsPerBlock} threads exceeds the limit of ${limit} (device ${a('maxThreadsPerBlock')}, kernel ${kernelMax})`,
      );
    }
    if (gx > a('maxGridDimX') || gy > a('maxGridDimY') || gz > a('maxGridDimZ')) {
      throw new LaunchConfigError(
        `${this.name}: grid ${config.grid.join('x')} exceeds the device's ${a('maxGridDimX')}x${a('maxGridDimY')}x${a('maxGridDimZ')}`,
      );
    }
    if (config.cluster) {
      const [major, minor] = [a('computeCapabilityMajor'), a('computeCapabilityMinor')];
      if (major < 9)
        throw new LaunchConfigError(
          `${this.name}: thread-block clusters need compute capability 9.0 or newer; ${driver.cuDeviceGetName(deviceHandle(ordinal))} is ${major}.${minor}`,
        );
    }
    if (config.sharedMemory > a('maxSharedMemoryPerBlockOptin')) {
      throw new LaunchConfigError(
        `${this.name}: ${config.sharedMemory} bytes of shared memory exceed the device's ${a('maxSharedMemoryPerBlockOptin')} per block`,
      );
    }
    if (config.sharedMemory > this.#sharedMemoryAllowed) {
      // above 48 KiB a kernel must opt in; do it for the user, as the limit was checked above
      driver.cuFuncSetAttribute(fn, attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, config.sharedMemory);
      this.#sharedMemoryAllowed = config.sharedMemory;
    }
    if (config.cooperative) {
      const perSm = driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        fn,
        config.threadsPerBlock,
        config.sharedMemory,
      ) as number;
      const coResident = perSm * a('multiprocessorCount');
      if (config.blocks > coResident) {
        throw new LaunchConfigError(
          `${this.name}: a cooperative grid of ${config.blocks} blocks exceeds the ${coResident} that can be co-resident (${perSm} per SM x ${a('multiprocessorCount')} SMs)`,
        );
      }
    }
    this.#configs.add(config);
    this.#lastConfig = config;
  }
}
