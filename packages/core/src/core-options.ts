import { checkOptions, isAnything, isOneOf, type OptionTable, type OptionTableOf } from '@cuda-js/options';
import type { DeviceArrayOptions } from './device/device-array.js';
import { CoreOptionError } from './errors.js';
import type { GraphAllocateOptions } from './graph/graph-node-methods.js';
import type { Buffer } from './memory/buffer.js';

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a CoreOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all) unless
 * `plainOnly` is false (a LaunchConfig is a LaunchConfig's options), each key
 * read once. Use what it returns: the values it checked.
 */
export function checkCoreOptions<T extends object>(
  where: string,
  options: unknown,
  table: OptionTable,
  plainOnly = true,
): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, {
    where,
    fail: (problem) => new CoreOptionError(problem),
    plainOnly,
    snapshot: true,
  });
}

// Each table is written `satisfies OptionTableOf<TheOptions>`: the options'
// interface (or parameter type) is their one declaration, and a key without a
// row, or a row without a key, fails to compile.

// The stream and device values are checked where they are used (streamHandle, ...), with their own messages.

/** `{ stream }`: the options of allocate, the copies, close and the managed-memory hints. */
export const STREAM_OPTIONS = { stream: isAnything } satisfies OptionTableOf<
  NonNullable<Parameters<Buffer['copyTo']>[1]>
>;

/** `Buffer.fill(value, { stream, width })`. */
export const FILL_OPTIONS = { stream: isAnything, width: isOneOf([1, 4]) } satisfies OptionTableOf<
  NonNullable<Parameters<Buffer['fill']>[1]>
>;

/** `DeviceArray.allocate`, `allocateLike`, `fromHost` (DeviceArrayOptions). */
export const DEVICE_ARRAY_OPTIONS = {
  device: isAnything,
  stream: isAnything,
  memory: isAnything,
} satisfies OptionTableOf<DeviceArrayOptions>;

/** The graph's allocation node (GraphAllocateOptions). */
export const GRAPH_ALLOCATE_OPTIONS = { device: isAnything } satisfies OptionTableOf<GraphAllocateOptions>;
