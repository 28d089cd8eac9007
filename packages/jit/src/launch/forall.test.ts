import { LaunchConfig, LaunchConfigError } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { forallConfig } from './forall.js';

describe('forallConfig', () => {
  it('covers n threads with the fewest blocks of the given size', () => {
    const c = forallConfig(1000, 256);
    expect(c).toBeInstanceOf(LaunchConfig);
    expect([c.grid, c.block, c.sharedMemory]).toEqual([[4, 1, 1], [256, 1, 1], 0]);
    expect(forallConfig(1024, 256).grid[0]).toBe(4);
    expect(forallConfig(1, 1024).grid[0]).toBe(1);
    expect(forallConfig(10, 32, 1024).sharedMemory).toBe(1024);
    expect(forallConfig(2 ** 40, 1024).grid[0]).toBe(2 ** 30);
  });

  it('launches one block for no work (a bounds-checked kernel does nothing), and gives the cached config', () => {
    expect(forallConfig(0, 128).grid).toEqual([1, 1, 1]);
    expect(forallConfig(4096, 128)).toBe(forallConfig(4096, 128));
  });

  it('refuses counts and block sizes that are not integers', () => {
    expect(() => forallConfig(-1, 32)).toThrow(LaunchConfigError);
    expect(() => forallConfig(1.5, 32)).toThrow(
      'forall: the number of threads must be a non-negative integer, got 1.5',
    );
    expect(() => forallConfig(10, 0)).toThrow('forall: the block size must be a positive integer, got 0');
  });
});
