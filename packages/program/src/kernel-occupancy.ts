import { cuda, enumValue } from './cuda-bindings.js';
import { InvalidArgumentError } from './errors.js';
import type { Kernel } from './kernel.js';

const ATTRIBUTE_BYTES = 8 + 64;

/** A grid, block or cluster shape: `256`, `[16, 16]`, `[4, 4, 4]` or `{ x, y, z }`. */
export type Dim3 = number | readonly [number, number?, number?] | { readonly x: number; readonly y?: number; readonly z?: number };

/** A launch shape for the cluster occupancy queries. */
export interface ClusterLaunchConfig {
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Cluster shape; omit it to ask about the kernel's own (compile-time) cluster size. */
  readonly cluster?: Dim3;
  /** Dynamic shared memory per block, in bytes. Default 0. */
  readonly sharedMemoryBytes?: number;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new InvalidArgumentError(name, value, 'a positive integer');
  return value;
}

function nonNegative(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new InvalidArgumentError(name, value, 'a non-negative integer');
  return value;
}

/** `[x, y, z]` of a {@link Dim3}, each a positive integer. */
export function toDim3(name: string, value: Dim3): [number, number, number] {
  if (typeof value === 'number') return [positive(name, value), 1, 1];
  if (Array.isArray(value)) {
    const a = value as readonly (number | undefined)[];
    if (a.length < 1 || a.length > 3) throw new InvalidArgumentError(name, value, 'one to three dimensions');
    return [positive(`${name}[0]`, a[0]), positive(`${name}[1]`, a[1] ?? 1), positive(`${name}[2]`, a[2] ?? 1)];
  }
  if (value !== null && typeof value === 'object') {
    const o = value as { x: number; y?: number; z?: number };
    return [positive(`${name}.x`, o.x), positive(`${name}.y`, o.y ?? 1), positive(`${name}.z`, o.z ?? 1)];
  }
  throw new InvalidArgumentError(name, value, 'a number, an array of one to three numbers or { x, y, z }');
}

/**
 * Occupancy of a {@link Kernel} on the current context's device (the
 * driver's `cuOccupancy*` calls on the kernel's `CUfunction`).
 */
export class KernelOccupancy {
  constructor(private readonly kernel: Kernel) {}

  /** Blocks of `blockSize` threads that fit on one multiprocessor at once. */
  maxActiveBlocksPerMultiprocessor(blockSize: number, dynamicSharedMemoryBytes = 0): number {
    return cuda.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(this.kernel.getFunction(), positive('blockSize', blockSize), nonNegative('dynamicSharedMemoryBytes', dynamicSharedMemoryBytes));
  }

  /**
   * The block size that reaches the highest occupancy, and the smallest grid
   * that fills the device with it. `blockSizeLimit` 0 means no limit.
   */
  maxPotentialBlockSize(dynamicSharedMemoryBytes = 0, blockSizeLimit = 0): { readonly minGridSize: number; readonly blockSize: number } {
    const r = cuda.driver.cuOccupancyMaxPotentialBlockSize(
      this.kernel.getFunction(),
      null,
      nonNegative('dynamicSharedMemoryBytes', dynamicSharedMemoryBytes),
      nonNegative('blockSizeLimit', blockSizeLimit),
    );
    return { minGridSize: r.minGridSize, blockSize: r.blockSize };
  }

  /** Dynamic shared memory per block available when `numBlocks` blocks of `blockSize` share a multiprocessor. */
  availableDynamicSharedMemoryPerBlock(numBlocks: number, blockSize: number): number {
    const bytes = cuda.driver.cuOccupancyAvailableDynamicSMemPerBlock(this.kernel.getFunction(), positive('numBlocks', numBlocks), positive('blockSize', blockSize));
    return Number(bytes);
  }

  /** The largest cluster size that can run this launch shape. */
  maxPotentialClusterSize(config: ClusterLaunchConfig): number {
    return cuda.driver.cuOccupancyMaxPotentialClusterSize(this.kernel.getFunction(), this.launchConfig(config));
  }

  /** How many clusters of the given shape can be resident at once. */
  maxActiveClusters(config: ClusterLaunchConfig): number {
    return cuda.driver.cuOccupancyMaxActiveClusters(this.kernel.getFunction(), this.launchConfig(config));
  }

  /** The `CUlaunchConfig` the cluster queries take. */
  private launchConfig(config: ClusterLaunchConfig): object {
    if (config === null || typeof config !== 'object') throw new InvalidArgumentError('config', config, '{ grid, block, cluster?, sharedMemoryBytes? }');
    const [gx, gy, gz] = toDim3('grid', config.grid);
    const [bx, by, bz] = toDim3('block', config.block);
    const out = {
      gridDimX: gx,
      gridDimY: gy,
      gridDimZ: gz,
      blockDimX: bx,
      blockDimY: by,
      blockDimZ: bz,
      sharedMemBytes: nonNegative('sharedMemoryBytes', config.sharedMemoryBytes ?? 0),
      hStream: 0n,
    };
    if (config.cluster === undefined) return out;
    const [x, y, z] = toDim3('cluster', config.cluster);
    // One CUlaunchAttribute (cuda.h): the id (u32), padding to 8 bytes, then a
    // 64-byte value union whose clusterDim member is three u32 at its start.
    const attribute = new DataView(new ArrayBuffer(ATTRIBUTE_BYTES));
    attribute.setUint32(0, enumValue(cuda.driver.CUlaunchAttributeID, 'CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION'), true);
    attribute.setUint32(8, x, true);
    attribute.setUint32(12, y, true);
    attribute.setUint32(16, z, true);
    return { ...out, attrs: attribute.buffer, numAttrs: 1 };
  }
}
