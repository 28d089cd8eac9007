import { LaunchConfig, LaunchConfigError } from '@cuda-js/core';

/**
 * The launch config that runs at least `n` threads in blocks of `block`
 * (numba's `forall`): `ceil(n / block)` blocks, at least one, so that a
 * kernel that bounds-checks its index (`if (i < n)`) covers `n` items.
 */
export function forallConfig(n: number, block: number, sharedMemory = 0): LaunchConfig {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new LaunchConfigError(`forall: the number of threads must be a non-negative integer, got ${String(n)}`);
  if (!Number.isInteger(block) || block < 1)
    throw new LaunchConfigError(`forall: the block size must be a positive integer, got ${String(block)}`);
  return LaunchConfig.from({ grid: Math.max(1, Math.ceil(n / block)), block, sharedMemory });
}
