import type { Dim3 } from '@cuda-js/program';
import type { LaunchConfigOptions } from './launch-config.js';

/**
 * Whether an options object names only the options a LaunchConfig knows
 * (read without making an array: this runs on every launch given a plain object).
 */
export function hasOnlyConfigKeys(options: object): boolean {
  for (const key in options) {
    if (key !== 'grid' && key !== 'block' && key !== 'cluster' && key !== 'sharedMemory' && key !== 'cooperative')
      return false;
  }
  return true;
}

/**
 * A config's fields as plain numbers, as {@link matchesConfig} compares them:
 * grid x, y, z, block x, y, z, cluster x, y, z (0, 0, 0 for none), dynamic
 * shared memory, cooperative (1) or not (0). A LaunchConfig's own arrays are
 * frozen, and elements of frozen arrays are slow to read on a hot path.
 */
export type ConfigKey = readonly number[];

/** The key of a config's fields (see {@link ConfigKey}). */
export function configKey(
  grid: readonly number[],
  block: readonly number[],
  cluster: readonly number[] | undefined,
  sharedMemory: number,
  cooperative: boolean,
): ConfigKey {
  return [
    grid[0]!,
    grid[1]!,
    grid[2]!,
    block[0]!,
    block[1]!,
    block[2]!,
    cluster?.[0] ?? 0,
    cluster?.[1] ?? 0,
    cluster?.[2] ?? 0,
    sharedMemory,
    cooperative ? 1 : 0,
  ];
}

function sameDim(value: Dim3 | undefined, key: ConfigKey, at: number): boolean {
  if (typeof value === 'number') return value === key[at] && key[at + 1] === 1 && key[at + 2] === 1;
  if (!Array.isArray(value)) {
    if (value === null || typeof value !== 'object') return false;
    const { x, y, z } = value as { x?: unknown; y?: unknown; z?: unknown }; // `{ x, y, z }`: a missing or undefined one is 1
    return x === key[at] && (y ?? 1) === key[at + 1] && (z ?? 1) === key[at + 2];
  }
  const n = value.length;
  if (n < 1 || n > 3) return false;
  return (
    value[0] === key[at] &&
    (n > 1 ? value[1] === key[at + 1] : key[at + 1] === 1) &&
    (n > 2 ? value[2] === key[at + 2] : key[at + 2] === 1)
  );
}

/**
 * Whether `new LaunchConfig(options)` would make a config whose key is `key`:
 * the same grid, block, cluster, shared memory and cooperative flag, each
 * normalized as the constructor normalizes it. Anything the constructor
 * would refuse matches nothing, so a match is always a valid config. The
 * caller checks {@link hasOnlyConfigKeys} too.
 */
export function matchesConfig(options: LaunchConfigOptions, key: ConfigKey): boolean {
  if (!sameDim(options.grid, key, 0) || !sameDim(options.block, key, 3)) return false;
  const cluster = options.cluster;
  if (cluster === undefined ? key[6] !== 0 : key[6] === 0 || !sameDim(cluster, key, 6)) return false;
  return (options.sharedMemory ?? 0) === key[9] && (options.cooperative ?? false) === (key[10] === 1);
}
