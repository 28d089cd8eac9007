import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CoreOptionError, LaunchConfigError } from '../errors.js';
import { LaunchConfig, type LaunchConfigOptions } from './launch-config.js';

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

  it('takes the Dim3 forms of program (the occupancy queries take the same): { x, y, z } too', () => {
    const c = new LaunchConfig({ grid: { x: 8, y: 2 }, block: { x: 32, z: 2 }, cluster: { x: 2 } });
    expect([c.grid, c.block, c.cluster]).toEqual([
      [8, 2, 1],
      [32, 1, 2],
      [2, 1, 1],
    ]);
    const a = LaunchConfig.from({ grid: [8, 2], block: 32 });
    expect(LaunchConfig.from({ grid: { x: 8, y: 2 }, block: { x: 32 } })).toBe(a);
    expect(LaunchConfig.from({ grid: { x: 8, y: 3 }, block: { x: 32 } })).not.toBe(a);
  });

  it('accepts a plain object through LaunchConfig.from, and returns a LaunchConfig as is', () => {
    const c = LaunchConfig.from({ grid: 1, block: [32, 4, 2], sharedMemory: 1024, cooperative: true });
    expect(c).toBeInstanceOf(LaunchConfig);
    expect(c.threadsPerBlock).toBe(256);
    expect(LaunchConfig.from(c)).toBe(c);
  });

  it.each([
    [{ grid: 0, block: 1 }, 'LaunchConfig.grid must hold positive integers, got 0'],
    [
      { grid: 1, block: [1, 2, 3, 4] },
      'LaunchConfig.block must be a number, an array of 1 to 3 numbers or { x, y, z }',
    ],
    [{ grid: { x: 0 }, block: 1 }, 'LaunchConfig.grid must hold positive integers'],
    [{ grid: 1.5, block: 1 }, 'positive integers'],
    [{ grid: 1, block: 1, sharedMemory: -1 }, 'sharedMemory must be a non-negative integer'],
    [{ grid: 3, block: 1, cluster: 2 }, 'grid 3x1x1 is not a multiple of cluster 2x1x1'],
    [{ block: 1 }, 'LaunchConfig.grid must be a number'],
    // issue 20: limits of every CUDA device, named before a device or the driver is asked
    [
      { grid: 1, block: [1024, 1024, 1024] },
      'LaunchConfig: block 1024x1024x1024 exceeds 1024x1024x64, the largest block of every CUDA device',
    ],
    [
      { grid: 1, block: [64, 32] },
      'LaunchConfig: block 64x32x1 has 2048 threads; no CUDA device runs more than 1024 threads per block',
    ],
    [{ grid: 1, block: [33, 32] }, 'has 1056 threads'],
    [{ grid: [1, 65536], block: 1 }, 'LaunchConfig: grid 1x65536x1 exceeds 2147483647x65535x65535'],
    [{ grid: 2 ** 31, block: 1 }, 'exceeds 2147483647x65535x65535'],
    [
      { grid: { x: 1, w: 2 }, block: 1 },
      'LaunchConfig.grid must be a number, an array of 1 to 3 numbers or { x, y, z }',
    ],
    [
      { grid: 2, block: 32, cluster: 2, cooperative: true },
      'LaunchConfig: a cooperative launch with thread-block clusters (cluster 2x1x1) is not supported',
    ],
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
    expect(() => LaunchConfig.from({ grid: 8, block: 1, blocks: 2 } as never)).toThrow(
      "LaunchConfig: unknown option 'blocks' (did you mean 'block'?); known options: grid, block, cluster, sharedMemory, cooperative",
    );
    expect(() => new LaunchConfig({ grid: 1, block: 1, blocks: 2 } as never)).toThrow(CoreOptionError);
    expect(() => LaunchConfig.from({ grid: [8, undefined], block: 1 } as never)).toThrow('positive integers');
    expect(() => LaunchConfig.from({ grid: '8', block: 1 } as never)).toThrow(LaunchConfigError);
  });

  it('keeps the most recent configs: a loop over a few shapes reuses each', () => {
    const shapes = Array.from({ length: 6 }, (_, i) => ({ grid: 100 + i, block: 64 }));
    const first = shapes.map((s) => LaunchConfig.from(s));
    for (let round = 0; round < 3; round++)
      shapes.forEach((s, i) => expect(LaunchConfig.from({ ...s })).toBe(first[i]));
    for (let i = 0; i < 40; i++) LaunchConfig.from({ grid: 1000 + i, block: 32 });
    expect(LaunchConfig.from(shapes[0]!)).not.toBe(first[0]); // evicted, made again: equal fields, another object
    expect(LaunchConfig.from(shapes[0]!).grid).toEqual(first[0]!.grid);
  });

  it('gives a plain object changed between launches the config it says now, never the last one', () => {
    const options: { grid: number | [number, number]; block: [number, number]; sharedMemory?: number } = {
      grid: 4,
      block: [32, 2],
    };
    const first = LaunchConfig.from(options);
    expect(LaunchConfig.from(options)).toBe(first);
    options.grid = 8;
    expect(LaunchConfig.from(options).grid).toEqual([8, 1, 1]);
    options.block[1] = 4; // the same array, changed in place
    expect(LaunchConfig.from(options).block).toEqual([32, 4, 1]);
    options.grid = [8, 3];
    expect(LaunchConfig.from(options).grid).toEqual([8, 3, 1]);
    options.sharedMemory = 256;
    expect(LaunchConfig.from(options).sharedMemory).toBe(256);
    options.grid = 0;
    expect(() => LaunchConfig.from(options)).toThrow(LaunchConfigError);
    options.grid = 4;
    options.block = [32, 2];
    delete options.sharedMemory;
    expect(LaunchConfig.from(options)).toBe(first); // back to what it said at first
  });

  it('refuses an unknown key even when the known ones match the last config (a typo must not launch with the default)', () => {
    LaunchConfig.from({ grid: 2, block: 64 });
    expect(() => LaunchConfig.from({ grid: 2, block: 64, sharedMem: 1024 } as LaunchConfigOptions)).toThrow(
      "unknown option 'sharedMem' (did you mean 'sharedMemory'?)",
    );
    expect(() => LaunchConfig.from({ grid: 2, block: 64, clusters: 2 } as LaunchConfigOptions)).toThrow(
      "unknown option 'clusters' (did you mean 'cluster'?)",
    );
  });

  it('matches a plain object to the config that new LaunchConfig makes of it, or refuses it as the constructor does (fast-check)', () => {
    const dim = fc.oneof(
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 }),
      fc.record(
        {
          x: fc.integer({ min: 1, max: 3 }),
          y: fc.constantFrom<unknown>(undefined, 1, 2),
          z: fc.constantFrom<unknown>(undefined, 1, 0),
        },
        { requiredKeys: ['x'] },
      ),
      fc.constantFrom<unknown>(0, -1, 1.5, '2', [], [1, 2, 3, 4], [1, undefined], 2 ** 32, {}, { x: 1, y: null }),
    );
    const options = fc.record(
      {
        grid: dim,
        block: dim,
        cluster: fc.oneof(fc.constant(undefined), fc.constantFrom<unknown>(1, [1, 1], 2)),
        sharedMemory: fc.constantFrom<unknown>(undefined, 0, 16, -1, 0.5),
        cooperative: fc.constantFrom<unknown>(undefined, false, true, 1),
        extra: fc.constantFrom<unknown>(undefined),
      },
      { requiredKeys: ['grid', 'block'] },
    );
    const summarize = (make: () => LaunchConfig): string => {
      try {
        const c = make();
        return JSON.stringify([c.grid, c.block, c.cluster, c.sharedMemory, c.cooperative]);
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    };
    fc.assert(
      fc.property(fc.array(options, { minLength: 1, maxLength: 8 }), (list) => {
        for (const o of list)
          expect(summarize(() => LaunchConfig.from(o as LaunchConfigOptions))).toBe(
            summarize(() => new LaunchConfig(o as LaunchConfigOptions)),
          );
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});
