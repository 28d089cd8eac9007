import {
  checkOptions,
  isAnything,
  isBoolean,
  isFunction,
  type OptionProblem,
  type OptionTable,
  type OptionTableOf,
} from '@cuda-js/options';
import type { FromManagedTensorOptions, ToManagedTensorOptions } from './native/index.js';
import type { BufferViewOptions, PointerViewOptions, ViewOptions } from './view-options.js';
import { MemoryViewError } from './errors.js';

/** An options object of @cuda-js/memory-view with an unknown key (named with the nearest known one) or a wrong value. */
export class ViewOptionError extends MemoryViewError {
  override readonly name = 'ViewOptionError';
  constructor(
    /** What was wrong: the key, what was expected, the suggestion. */
    readonly problem: OptionProblem,
  ) {
    super(problem.message);
  }
}

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a ViewOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all), each
 * key read once. Use what it returns: the values it checked.
 */
export function checkViewOptions<T extends object>(
  where: string,
  options: unknown,
  table: OptionTable,
  nullIsAbsent = false,
): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, {
    where,
    fail: (problem) => new ViewOptionError(problem),
    nullIsAbsent,
    plainOnly: true,
    snapshot: true,
  });
}

// The values that the layout and stream readers check with their own messages are taken as they are here.

/** `fromAny`, `fromDLPack`, `fromCudaArrayInterface`, `fromExchangeApi` (ViewOptions). */
export const VIEW_OPTIONS = { stream: isAnything, writable: isBoolean } satisfies OptionTableOf<ViewOptions>;

/** `Viewable.view(stream, options)`: the stream is its own argument. */
export const VIEWABLE_VIEW_OPTIONS: OptionTable = { writable: isBoolean };

/** `fromBuffer` (BufferViewOptions). */
export const BUFFER_VIEW_OPTIONS = {
  dtype: isAnything,
  shape: isAnything,
  strides: isAnything,
  byteOffset: isAnything,
  readonly: isBoolean,
  exporter: isAnything,
} satisfies OptionTableOf<BufferViewOptions>;

/** `fromPointer` (PointerViewOptions). */
export const POINTER_VIEW_OPTIONS = {
  dtype: isAnything,
  shape: isAnything,
  strides: isAnything,
  device: isAnything,
  readonly: isBoolean,
  exporter: isAnything,
  stream: isAnything,
  release: isFunction,
} satisfies OptionTableOf<PointerViewOptions>;

/** `view.view({ dtype, shape })`. */
export const REINTERPRET_OPTIONS: OptionTable = { dtype: isAnything, shape: isAnything };

/** `toManagedTensor` (ToManagedTensorOptions). */
export const TO_MANAGED_TENSOR_OPTIONS = {
  ...VIEW_OPTIONS,
  legacy: isBoolean,
} satisfies OptionTableOf<ToManagedTensorOptions>;

/** `fromManagedTensor` (FromManagedTensorOptions). */
export const FROM_MANAGED_TENSOR_OPTIONS = {
  legacy: isBoolean,
  exporter: isAnything,
  stream: isAnything,
  writable: isBoolean,
} satisfies OptionTableOf<FromManagedTensorOptions>;
