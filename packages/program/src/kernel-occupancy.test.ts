import type { CUkernel } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, Kernel } from './index.js';

// A Kernel of a handle that names nothing: every query below must refuse its
// input before it asks the driver (here or on a machine without libcuda).
const occupancy = Kernel.fromHandle(brandHandle<CUkernel>(0x1234n), 'k').occupancy;

describe('KernelOccupancy: the cluster queries take a LaunchConfig-shaped argument', () => {
  it('reads sharedMemory, the field of LaunchConfig, and checks it before the driver', () => {
    expect(() => occupancy.maxActiveClusters({ grid: 8, block: 128, cluster: 2, sharedMemory: -1 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => occupancy.maxPotentialClusterSize({ grid: 8, block: 128, sharedMemory: 0.5 })).toThrow(
      /'sharedMemory' must be a non-negative integer/,
    );
  });

  it('refuses the former name sharedMemoryBytes instead of reading it as 0', () => {
    const old = { grid: 8, block: 128, sharedMemoryBytes: 4096 } as Parameters<typeof occupancy.maxActiveClusters>[0];
    expect(() => occupancy.maxActiveClusters(old)).toThrow(InvalidArgumentError);
    expect(() => occupancy.maxActiveClusters(old)).toThrow(/sharedMemoryBytes.*sharedMemory/);
  });

  it('takes the Dim3 forms of LaunchConfig, and refuses others by name', () => {
    expect(() => occupancy.maxActiveClusters({ grid: [8, 1, 1], block: { x: 0 }, cluster: 2 })).toThrow(
      /'block' must be made of positive integers/,
    );
    expect(() => occupancy.maxActiveClusters({ grid: [8, 1, 1, 1] as never, block: 1 })).toThrow(
      /'grid' must be a number, an array of one to three numbers or \{ x, y, z \}/,
    );
    expect(() => occupancy.maxActiveClusters({ grid: 8, block: 1, cluster: 2 ** 32 })).toThrow(InvalidArgumentError);
    expect(() => occupancy.maxActiveClusters(null as never)).toThrow(InvalidArgumentError);
  });
});
