import { formatValue } from '@cuda-js/memory-view';
import { LaunchConfigError } from './errors.js';
import { hasOnlyConfigKeys, matchesConfig } from './launch-config-match.js';

/** A grid or block size: a number, or up to three numbers (x, y, z). */
export type Dim3 = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

export interface LaunchConfigOptions {
  /** Blocks in the grid (or clusters × cluster size when `cluster` is set). */
  readonly grid: Dim3;
  /** Threads per block. */
  readonly block: Dim3;
  /** Thread-block cluster size (compute capability 9.0 and newer). */
  readonly cluster?: Dim3;
  /** Dynamic shared memory per block, in bytes (default 0). */
  readonly sharedMemory?: number;
  /** A cooperative launch: all blocks co-resident, grid-wide sync allowed. */
  readonly cooperative?: boolean;
}

/** How many configs made from plain objects {@link LaunchConfig.from} remembers. */
export const RECENT_CONFIGS = 16;

const KEYS = new Set(['grid', 'block', 'cluster', 'sharedMemory', 'cooperative']);

const MAX_DIM = 0xffffffff; // cuLaunchKernel takes unsigned int dimensions
const MAX_PRODUCT = 0x7fffffff; // threads per block, blocks per cluster: a signed int in the driver

function dim3(value: Dim3 | undefined, what: string): readonly [number, number, number] {
  let parts: unknown[] | undefined;
  if (typeof value === 'number') parts = [value];
  else if (Array.isArray(value)) {
    // Read once each: a Proxy or a getter cannot answer twice.
    const n: unknown = value.length;
    if (typeof n === 'number' && n >= 1 && n <= 3) {
      parts = [];
      for (let i = 0; i < n; i++) parts.push((value as unknown[])[i]);
    }
  }
  if (!parts) {
    throw new LaunchConfigError(`LaunchConfig.${what} must be a number or an array of 1 to 3 numbers, got ${formatValue(value)}`);
  }
  for (const n of parts) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_DIM) {
      throw new LaunchConfigError(`LaunchConfig.${what} must hold positive integers, got ${formatValue(value)} (each at most 2^32-1)`);
    }
  }
  return Object.freeze([parts[0] ?? 1, parts[1] ?? 1, parts[2] ?? 1] as [number, number, number]);
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

  constructor(options: LaunchConfigOptions) {
    if (options === null || typeof options !== 'object') throw new LaunchConfigError('LaunchConfig takes an options object { grid, block, ... }');
    for (const key of Object.keys(options)) if (!KEYS.has(key)) throw new LaunchConfigError(`LaunchConfig: unknown option '${key}' (known: ${[...KEYS].join(', ')})`);
    this.grid = dim3(options.grid, 'grid');
    this.block = dim3(options.block, 'block');
    this.cluster = options.cluster === undefined ? undefined : dim3(options.cluster, 'cluster');
    const shared: unknown = options.sharedMemory ?? 0;
    if (typeof shared !== 'number' || !Number.isInteger(shared) || shared < 0 || shared > MAX_DIM) {
      throw new LaunchConfigError(`LaunchConfig.sharedMemory must be a non-negative integer (at most 2^32-1 bytes), got ${formatValue(shared)}`);
    }
    this.sharedMemory = shared;
    const cooperative: unknown = options.cooperative ?? false;
    if (typeof cooperative !== 'boolean') throw new LaunchConfigError(`LaunchConfig.cooperative must be true or false, got ${formatValue(cooperative)}`);
    this.cooperative = cooperative;
    const [bx, by, bz] = this.block;
    if (bx * by * bz > MAX_PRODUCT) throw new LaunchConfigError(`LaunchConfig: block ${this.block.join('x')} has ${bx * by * bz} threads, more than 2^31-1`);
    if (this.cluster && this.cluster[0] * this.cluster[1] * this.cluster[2] > MAX_PRODUCT) {
      throw new LaunchConfigError(`LaunchConfig: cluster ${this.cluster.join('x')} has more than 2^31-1 blocks`);
    }
    // Every thread of the grid must have a 64-bit global index.
    const threads = BigInt(this.grid[0]) * BigInt(this.grid[1]) * BigInt(this.grid[2]) * BigInt(bx * by * bz);
    if (threads >= 1n << 64n) throw new LaunchConfigError(`LaunchConfig: grid ${this.grid.join('x')} of blocks ${this.block.join('x')} has ${threads} threads, more than 2^64-1`);
    if (this.cluster) {
      for (let i = 0; i < 3; i++) {
        if (this.grid[i]! % this.cluster[i]! !== 0) {
          throw new LaunchConfigError(`LaunchConfig: grid ${this.grid.join('x')} is not a multiple of cluster ${this.cluster.join('x')}`);
        }
      }
    }
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
   * comparing fields, with no allocation.
   */
  static from(config: LaunchConfig | LaunchConfigOptions): LaunchConfig {
    if (config instanceof LaunchConfig) return config;
    const recent = LaunchConfig.#recent;
    if (config !== null && typeof config === 'object' && hasOnlyConfigKeys(config)) {
      for (let i = 0; i < recent.length; i++) {
        const known = recent[i]!;
        if (matchesConfig(config, known)) {
          if (i > 0) {
            recent[i] = recent[i - 1]!;
            recent[i - 1] = known;
          }
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
