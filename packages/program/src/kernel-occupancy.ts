import { cuda } from './cuda-bindings.js';
import { readDim3, type Dim3 } from './dim3.js';
import { InvalidArgumentError } from './errors.js';
import type { Kernel } from './kernel.js';

const ATTRIBUTE_BYTES = 8 + 64;

/**
 * A launch shape for the cluster occupancy queries: `@cuda-js/core`'s
 * `LaunchConfig` fits, and so does a plain object with its fields (other
 * fields, such as `cooperative`, are not read).
 */
export interface ClusterLaunchConfig {
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Cluster shape; omit it to ask about the kernel's own (compile-time) cluster size. */
  readonly cluster?: Dim3 | undefined;
  /** Dynamic shared memory per block, in bytes. Default 0. */
  readonly sharedMemory?: number | undefined;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new InvalidArgumentError(name, value, 'a positive integer');
  return value;
}

function nonNegative(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new InvalidArgumentError(name, value, 'a non-negative integer');
  return value;
}

/** `[x, y, z]` of a {@link Dim3}, each a positive integer. */
function toDim3(name: string, value: Dim3): [number, number, number] {
  const dims = readDim3(value);
  if (typeof dims !== 'string') return dims;
  throw new InvalidArgumentError(
    name,
    value,
    dims === 'form'
      ? 'a number, an array of one to three numbers or { x, y, z }'
      : 'made of positive integers (each at most 2^32-1)',
  );
}

/**
 * Occupancy of a {@link Kernel} on the current context's device (the
 * driver's `cuOccupancy*` calls on the kernel's `CUfunction`).
 */
export class KernelOccupancy {
  constructor(private readonly kernel: Kernel) {}

  /** Blocks of `blockSize` threads that fit on one multiprocessor at once. */
  maxActiveBlocksPerMultiprocessor(blockSize: number, dynamicSharedMemoryBytes = 0): number {
    return cuda.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
      this.kernel.getFunction(),
      positive('blockSize', blockSize),
      nonNegative('dynamicSharedMemoryBytes', dynamicSharedMemoryBytes),
    );
  }

  /**
   * The block size that reaches the highest occupancy, and the smallest grid
   * that fills the device with it. `blockSizeLimit` 0 means no limit.
   */
  maxPotentialBlockSize(
    dynamicSharedMemoryBytes = 0,
    blockSizeLimit = 0,
  ): { readonly minGridSize: number; readonly blockSize: number } {
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
    const bytes = cuda.driver.cuOccupancyAvailableDynamicSMemPerBlock(
      this.kernel.getFunction(),
      positive('numBlocks', numBlocks),
      positive('blockSize', blockSize),
    );
    return Number(bytes);
  }

  /** The largest cluster size that can run this launch shape. */
  maxPotentialClusterSize(config: ClusterLaunchConfig): number {
    const launchConfig = this.launchConfig(config);
    return cuda.driver.cuOccupancyMaxPotentialClusterSize(this.kernel.getFunction(), launchConfig);
  }

  /** How many clusters of the given shape can be resident at once. */
  maxActiveClusters(config: ClusterLaunchConfig): number {
    const launchConfig = this.launchConfig(config);
    return cuda.driver.cuOccupancyMaxActiveClusters(this.kernel.getFunction(), launchConfig);
  }

  /** The `CUlaunchConfig` the cluster queries take; every field checked before the driver is asked anything. */
  private launchConfig(config: ClusterLaunchConfig): object {
    if (config === null || typeof config !== 'object')
      throw new InvalidArgumentError('config', config, '{ grid, block, cluster?, sharedMemory? } or a LaunchConfig');
    // the name this query took before it took LaunchConfig's: refused, so that it is never read as 0
    if ('sharedMemoryBytes' in config)
      throw new InvalidArgumentError(
        'config.sharedMemoryBytes',
        config.sharedMemoryBytes,
        'given as sharedMemory (the field of LaunchConfig)',
      );
    const [gx, gy, gz] = toDim3('grid', config.grid);
    const [bx, by, bz] = toDim3('block', config.block);
    const cluster = config.cluster === undefined ? undefined : toDim3('cluster', config.cluster);
    const out = {
      gridDimX: gx,
      gridDimY: gy,
      gridDimZ: gz,
      blockDimX: bx,
      blockDimY: by,
      blockDimZ: bz,
      sharedMemBytes: nonNegative('sharedMemory', config.sharedMemory ?? 0),
      hStream: 0n,
    };
    if (cluster === undefined) return out;
    const [x, y, z] = cluster;
    // One CUlaunchAttribute (cuda.h): the id (u32), padding to 8 bytes, then a
    // 64-byte value union whose clusterDim member is three u32 at its start.
    const attribute = new DataView(new ArrayBuffer(ATTRIBUTE_BYTES));
    attribute.setUint32(0, cuda.driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, true);
    attribute.setUint32(8, x, true);
    attribute.setUint32(12, y, true);
    attribute.setUint32(16, z, true);
    return { ...out, attrs: attribute.buffer, numAttrs: 1 };
  }
}
