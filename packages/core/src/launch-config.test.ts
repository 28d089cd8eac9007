import { describe, expect, it } from 'vitest';
import { LaunchConfigError } from './errors.js';
import { LaunchConfig } from './launch-config.js';

describe('LaunchConfig', () => {
  it('normalizes grid, block and cluster to three dimensions', () => {
    const c = new LaunchConfig({ grid: [8, 2], block: 128, cluster: [2, 1] });
    expect([c.grid, c.block, c.cluster]).toEqual([
      [8, 2, 1],
      [128, 1, 1],
      [2, 1, 1],
    ]);
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

  it('gives the same config for plain objects with the same fields, however they are spelled', () => {
    const a = LaunchConfig.from({ grid: 40, block: 128 });
    expect(LaunchConfig.from({ grid: 40, block: 128 })).toBe(a);
    expect(LaunchConfig.from({ grid: [40], block: [128, 1, 1], sharedMemory: 0, cooperative: false })).toBe(a);
    expect(LaunchConfig.from({ grid: 40, block: 128, sharedMemory: 16 })).not.toBe(a);
    expect(LaunchConfig.from({ grid: 40, block: 128, cooperative: true })).not.toBe(a);
    expect(LaunchConfig.from({ grid: 40, block: 128, cluster: 2 })).not.toBe(a);
    expect(LaunchConfig.from({ grid: [40, 2], block: 128 })).not.toBe(a);
    const clustered = LaunchConfig.from({ grid: 8, block: 32, cluster: [2] });
    expect(LaunchConfig.from({ grid: 8, block: 32, cluster: 2 })).toBe(clustered);
    expect(LaunchConfig.from({ grid: 8, block: 32 })).not.toBe(clustered);
  });

  it('still refuses what the constructor refuses after a similar config was cached', () => {
    LaunchConfig.from({ grid: 8, block: 1 });
    expect(() => LaunchConfig.from({ grid: 8, block: 1, blocks: 2 } as never)).toThrow("unknown option 'blocks'");
    expect(() => LaunchConfig.from({ grid: [8, undefined], block: 1 } as never)).toThrow('positive integers');
    expect(() => LaunchConfig.from({ grid: '8', block: 1 } as never)).toThrow(LaunchConfigError);
  });

  it('keeps the most recent configs: a loop over a few shapes reuses each', () => {
    const shapes = Array.from({ length: 6 }, (_, i) => ({ grid: 100 + i, block: 64 }));
    const first = shapes.map((s) => LaunchConfig.from(s));
    for (let round = 0; round < 3; round++) shapes.forEach((s, i) => expect(LaunchConfig.from({ ...s })).toBe(first[i]));
    for (let i = 0; i < 40; i++) LaunchConfig.from({ grid: 1000 + i, block: 32 });
    expect(LaunchConfig.from(shapes[0]!)).not.toBe(first[0]); // evicted, made again: equal fields, another object
    expect(LaunchConfig.from(shapes[0]!).grid).toEqual(first[0]!.grid);
  });
});
