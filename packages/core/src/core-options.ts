import { checkOptions, isAnything, isOneOf, type OptionTable } from '@cuda-js/options';
import { CoreOptionError } from './errors.js';

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a CoreOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all) unless
 * `plainOnly` is false (a LaunchConfig is a LaunchConfig's options), each key
 * read once. Use what it returns: the values it checked.
 */
export function checkCoreOptions<T extends object>(where: string, options: unknown, table: OptionTable, plainOnly = true): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, { where, fail: (problem) => new CoreOptionError(problem), plainOnly, snapshot: true });
}

// The stream and device values are checked where they are used (streamHandle, ...), with their own messages.

/** `{ stream }`: the options of allocate, the copies, close and the managed-memory hints. */
export const STREAM_OPTIONS: OptionTable = { stream: isAnything };

/** `Buffer.fill(value, { stream, width })`. */
export const FILL_OPTIONS: OptionTable = { stream: isAnything, width: isOneOf([1, 4]) };

/** `DeviceArray.allocate`, `allocateLike`, `fromHost` (DeviceArrayOptions). */
export const DEVICE_ARRAY_OPTIONS: OptionTable = { device: isAnything, stream: isAnything, memory: isAnything };

/** The graph's allocation node (GraphAllocateOptions). */
export const GRAPH_ALLOCATE_OPTIONS: OptionTable = { device: isAnything };
