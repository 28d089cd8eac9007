import type { Dim3, LaunchConfig, LaunchConfigOptions } from './launch-config.js';

/**
 * Whether an options object names only the options a LaunchConfig knows
 * (read without making an array: this runs on every launch given a plain object).
 */
export function hasOnlyConfigKeys(options: object): boolean {
  for (const key in options) {
    if (key !== 'grid' && key !== 'block' && key !== 'cluster' && key !== 'sharedMemory' && key !== 'cooperative') return false;
  }
  return true;
}

function sameDim(value: Dim3 | undefined, dims: readonly [number, number, number]): boolean {
  if (typeof value === 'number') return value === dims[0] && dims[1] === 1 && dims[2] === 1;
  if (!Array.isArray(value)) return false;
  const n = value.length;
  if (n < 1 || n > 3) return false;
  return value[0] === dims[0] && (n > 1 ? value[1] === dims[1] : dims[1] === 1) && (n > 2 ? value[2] === dims[2] : dims[2] === 1);
}

/**
 * Whether `new LaunchConfig(options)` would make a config equal to `config`:
 * the same grid, block, cluster, shared memory and cooperative flag, each
 * normalized as the constructor normalizes it. Anything the constructor
 * would refuse matches nothing, so a match is always a valid config. The
 * caller checks {@link hasOnlyConfigKeys} first.
 */
export function matchesConfig(options: LaunchConfigOptions, config: LaunchConfig): boolean {
  if (!sameDim(options.grid, config.grid) || !sameDim(options.block, config.block)) return false;
  const cluster = options.cluster;
  if (cluster === undefined ? config.cluster !== undefined : config.cluster === undefined || !sameDim(cluster, config.cluster)) return false;
  return (options.sharedMemory ?? 0) === config.sharedMemory && (options.cooperative ?? false) === config.cooperative;
}
