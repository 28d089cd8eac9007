import { checkOptions, type OptionProblem, type OptionTable } from '@cuda-js/options';
import { StreamsError } from './errors.js';

/** An options object of @cuda-js/streams with an unknown key (named with the nearest known one) or a wrong value. */
export class StreamOptionError extends StreamsError {
  override readonly name = 'StreamOptionError';
  constructor(
    /** What was wrong: the key, what was expected, the suggestion. */
    readonly problem: OptionProblem,
  ) {
    super(problem.message);
  }
}

/**
 * Checks `options` against `table` with the stack's options checker, failing
 * with a StreamOptionError: a plain object only (a class instance's or a Map's
 * settings are no own keys, and would be read unchecked, or not at all), each
 * key read once. Use what it returns: the values it checked.
 */
export function checkStreamOptions<T extends object>(
  where: string,
  options: unknown,
  table: OptionTable,
): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, {
    where,
    fail: (problem) => new StreamOptionError(problem),
    plainOnly: true,
    snapshot: true,
  });
}
