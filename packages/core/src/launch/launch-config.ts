import { formatValue } from '@cuda-js/memory-view';
import { readDim3, type Dim3 } from '@cuda-js/program';
import { LaunchConfigError } from '../errors.js';
import { configKey, hasOnlyConfigKeys, matchesConfig, type ConfigKey } from './launch-config-match.js';
import { isAnything, type OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';

export type { Dim3 };

export interface LaunchConfigOptions {
  /** Blocks in the grid (or clusters × cluster size when `cluster` is set). */
  readonly grid: Dim3;
  /** Threads per block. */
  readonly block: Dim3;
  /** Thread-block cluster size (compute capability 9.0 and newer). */
  readonly cluster?: Dim3 | undefined;
  /** Dynamic shared memory per block, in bytes (default 0). */
  readonly sharedMemory?: number | undefined;
  /** A cooperative launch: all blocks co-resident, grid-wide sync allowed. */
  readonly cooperative?: boolean | undefined;
}

/** How many configs made from plain objects {@link LaunchConfig.from} remembers. */
export const RECENT_CONFIGS = 16;

// The values are checked below, each with its own LaunchConfigError.
const LAUNCH_CONFIG_OPTIONS = {
  grid: isAnything,
  block: isAnything,
  cluster: isAnything,
  sharedMemory: isAnything,
  cooperative: isAnything,
} satisfies OptionTableOf<LaunchConfigOptions>;

/** Whether `key` is one of {@link LaunchConfigOptions}' keys (for layers that add their own keys to a config, such as the JIT's `stream`). */
export function isLaunchConfigKey(key: string): boolean {
  return Object.hasOwn(LAUNCH_CONFIG_OPTIONS, key);
}

const MAX_DIM = 0xffffffff; // cuLaunchKernel takes unsigned int dimensions
const MAX_PRODUCT = 0x7fffffff; // blocks per cluster: a signed int in the driver
// The limits of every CUDA device since compute capability 3.0 (the CUDA C++
// Programming Guide's technical specifications): a config past them fails on
// any GPU, so it is refused here, before a device or the driver is asked.
const MAX_THREADS_PER_BLOCK = 1024;
const MAX_BLOCK_DIM = [1024, 1024, 64] as const;
const MAX_GRID_DIM = [0x7fffffff, 65535, 65535] as const;

function dim3(value: Dim3 | undefined, what: string): readonly [number, number, number] {
  const dims = readDim3(value);
  if (dims === 'form')
    throw new LaunchConfigError(
      `LaunchConfig.${what} must be a number, an array of 1 to 3 numbers or { x, y, z }, got ${formatValue(value)}`,
    );
  if (dims === 'extent')
    throw new LaunchConfigError(
      `LaunchConfig.${what} must hold positive integers, got ${formatValue(value)} (each at most 2^32-1)`,
    );
  return Object.freeze(dims);
}

/**
 * How to launch a kernel: grid, block, cluster, dynamic shared memory,
 * cooperative. Checked for form here; checked against the device and the
 * kernel at launch. Immutable, so a launch reuses its checks.
 */
export class LaunchConfig {
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly cluster: readonly [number, number, number] | undefined;
  readonly sharedMemory: number;
  readonly cooperative: boolean;
  /** The fields as plain numbers, for matching plain objects on each launch. */
  readonly #key: ConfigKey;

  constructor(options: LaunchConfigOptions) {
    if (options === null || typeof options !== 'object')
      throw new LaunchConfigError('LaunchConfig takes an options object { grid, block, ... }');
    // each key read once, not plain only: a LaunchConfig is a LaunchConfig's options
    options = checkCoreOptions<LaunchConfigOptions>(
      'LaunchConfig',
      options,
      LAUNCH_CONFIG_OPTIONS,
      false,
    ) as LaunchConfigOptions;
    this.grid = dim3(options.grid, 'grid');
    this.block = dim3(options.block, 'block');
    this.cluster = options.cluster === undefined ? undefined : dim3(options.cluster, 'cluster');
    const shared: unknown = options.sharedMemory ?? 0;
    if (typeof shared !== 'number' || !Number.isInteger(shared) || shared < 0 || shared > MAX_DIM) {
      throw new LaunchConfigError(
        `LaunchConfig.sharedMemory must be a non-negative integer (at most 2^32-1 bytes), got ${formatValue(shared)}`,
      );
    }
    this.sharedMemory = shared;
    const cooperative: unknown = options.cooperative ?? false;
    if (typeof cooperative !== 'boolean')
      throw new LaunchConfigError(`LaunchConfig.cooperative must be true or false, got ${formatValue(cooperative)}`);
    this.cooperative = cooperative;
    const [bx, by, bz] = this.block;
    if (bx > MAX_BLOCK_DIM[0] || by > MAX_BLOCK_DIM[1] || bz > MAX_BLOCK_DIM[2]) {
      throw new LaunchConfigError(
        `LaunchConfig: block ${this.block.join('x')} exceeds ${MAX_BLOCK_DIM.join('x')}, the largest block of every CUDA device`,
      );
    }
    if (bx * by * bz > MAX_THREADS_PER_BLOCK) {
      throw new LaunchConfigError(
        `LaunchConfig: block ${this.block.join('x')} has ${bx * by * bz} threads; no CUDA device runs more than ${MAX_THREADS_PER_BLOCK} threads per block`,
      );
    }
    const [gx, gy, gz] = this.grid;
    if (gx > MAX_GRID_DIM[0] || gy > MAX_GRID_DIM[1] || gz > MAX_GRID_DIM[2]) {
      throw new LaunchConfigError(
        `LaunchConfig: grid ${this.grid.join('x')} exceeds ${MAX_GRID_DIM.join('x')}, the largest grid of every CUDA device`,
      );
    }
    if (this.cooperative && this.cluster !== undefined) {
      // The co-residency that a cooperative launch needs is checked per block (cuOccupancyMaxActiveBlocksPerMultiprocessor);
      // clusters are placed by GPC, so that check would pass grids that cannot all be resident: refused, not left to chance.
      throw new LaunchConfigError(
        `LaunchConfig: a cooperative launch with thread-block clusters (cluster ${this.cluster.join('x')}) is not supported: its co-residency cannot be checked per block; launch cooperatively (grid-wide sync) or with clusters, not both`,
      );
    }
    if (this.cluster && this.cluster[0] * this.cluster[1] * this.cluster[2] > MAX_PRODUCT) {
      throw new LaunchConfigError(`LaunchConfig: cluster ${this.cluster.join('x')} has more than 2^31-1 blocks`);
    }
    // Every thread of the grid must have a 64-bit global index.
    const threads = BigInt(this.grid[0]) * BigInt(this.grid[1]) * BigInt(this.grid[2]) * BigInt(bx * by * bz);
    if (threads >= 1n << 64n)
      throw new LaunchConfigError(
        `LaunchConfig: grid ${this.grid.join('x')} of blocks ${this.block.join('x')} has ${threads} threads, more than 2^64-1`,
      );
    if (this.cluster) {
      for (let i = 0; i < 3; i++) {
        if (this.grid[i]! % this.cluster[i]! !== 0) {
          throw new LaunchConfigError(
            `LaunchConfig: grid ${this.grid.join('x')} is not a multiple of cluster ${this.cluster.join('x')}`,
          );
        }
      }
    }
    this.#key = configKey(this.grid, this.block, this.cluster, shared, cooperative);
    Object.freeze(this);
  }

  /** Threads per block. */
  get threadsPerBlock(): number {
    return this.block[0] * this.block[1] * this.block[2];
  }

  /** Blocks in the grid. */
  get blocks(): number {
    return this.grid[0] * this.grid[1] * this.grid[2];
  }

  /** The configs most recently made by {@link from}, the latest first. */
  static readonly #recent: LaunchConfig[] = [];

  /**
   * A LaunchConfig as is; a plain object with the same fields becomes one.
   * The configs made from plain objects are remembered (the last
   * `RECENT_CONFIGS`), so that `launch(s, { grid, block }, ...)` in a
   * loop gets the same, already checked config each time, found by
   * comparing fields, with no allocation. The fields are compared on every
   * call, so an object changed between launches gets the config it says now.
   */
  static from(config: LaunchConfig | LaunchConfigOptions): LaunchConfig {
    if (config instanceof LaunchConfig) return config;
    const recent = LaunchConfig.#recent;
    if (config !== null && typeof config === 'object') {
      // the config of the last launch first: the fields, then that there is no other key
      const latest = recent[0];
      if (latest !== undefined && matchesConfig(config, latest.#key) && hasOnlyConfigKeys(config)) return latest;
      // the constructor names an unknown key (an inherited one only: made, not remembered)
      if (!hasOnlyConfigKeys(config)) return new LaunchConfig(config);
      for (let i = 1; i < recent.length; i++) {
        const known = recent[i]!;
        if (matchesConfig(config, known.#key)) {
          recent[i] = recent[i - 1]!;
          recent[i - 1] = known;
          return known;
        }
      }
    }
    const made = new LaunchConfig(config);
    if (recent.length >= RECENT_CONFIGS) recent.pop();
    recent.unshift(made);
    return made;
  }
}
