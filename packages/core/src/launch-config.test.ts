import { describe, expect, it } from 'vitest';
import { LaunchConfigError } from './errors.js';
import { LaunchConfig } from './launch-config.js';

describe('LaunchConfig', () => {
  it('normalizes grid, block and cluster to three dimensions', () => {
    const c = new LaunchConfig({ grid: [8, 2], block: 128, cluster: [2, 1] });
    expect([c.grid, c.block, c.cluster]).toEqual([[8, 2, 1], [128, 1, 1], [2, 1, 1]]);
    expect([c.blocks, c.threadsPerBlock, c.sharedMemory, c.cooperative]).toEqual([16, 128, 0, false]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('accepts a plain object through LaunchConfig.from, and returns a LaunchConfig as is', () => {
    const c = LaunchConfig.from({ grid: 1, block: [32, 4, 2], sharedMemory: 1024, cooperative: true });
    expect(c).toBeInstanceOf(LaunchConfig);
    expect(c.threadsPerBlock).toBe(256);
    expect(LaunchConfig.from(c)).toBe(c);
  });

  it.each([
    [{ grid: 0, block: 1 }, 'LaunchConfig.grid must hold positive integers, got 0'],
    [{ grid: 1, block: [1, 2, 3, 4] }, 'LaunchConfig.block must be a number or an array of 1 to 3 numbers'],
    [{ grid: 1.5, block: 1 }, 'positive integers'],
    [{ grid: 1, block: 1, sharedMemory: -1 }, 'sharedMemory must be a non-negative integer'],
    [{ grid: 3, block: 1, cluster: 2 }, 'grid 3x1x1 is not a multiple of cluster 2x1x1'],
    [{ grid: 1, block: 1, blocks: 2 }, "unknown option 'blocks'"],
    [{ block: 1 }, 'LaunchConfig.grid must be a number'],
  ])('refuses %j', (options, message) => {
    expect(() => new LaunchConfig(options as never)).toThrow(LaunchConfigError);
    expect(() => new LaunchConfig(options as never)).toThrow(message);
  });
});
