import { checkOptions, type OptionTable } from '@cuda-js/options';
import { CoreOptionError } from './errors.js';

/** Checks `options` against `table` with the stack's options checker, failing with a CoreOptionError. */
export function checkCoreOptions<T extends object>(where: string, options: unknown, table: OptionTable): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, { where, fail: (problem) => new CoreOptionError(problem) });
}
