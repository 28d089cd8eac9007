import { describeValue, type OptionProblem, unknownOptionMessage } from './option-problem.js';
import { suggestName } from './suggest-name.js';
import { isPlainObject, type ValueCheck } from './value-checks.js';

/** One option of a table: its value check and, optionally, where it applies. */
export interface OptionRule<Context extends string = string> {
  readonly check: ValueCheck;
  /** The contexts (code types, backends) that accept the option; all when absent. */
  readonly appliesTo?: readonly Context[];
  /** Why the other contexts refuse it. */
  readonly notApplicable?: string;
}

/** An options object's names and their checks (a bare check is a rule for every context). */
export type OptionTable<Context extends string = string> = Readonly<Record<string, ValueCheck | OptionRule<Context>>>;

/**
 * The table of an options interface `T`: one rule per key of `T`, no more, no
 * fewer. Write a table as `{ ... } satisfies OptionTableOf<T>`, so that the
 * interface is the one declaration of the options: a key added to `T` without
 * a row, or a row without a key of `T`, fails to compile.
 */
export type OptionTableOf<T, Context extends string = string> = {
  readonly [K in keyof T]-?: ValueCheck | OptionRule<Context>;
};

export interface CheckOptionsSettings<Context extends string = string> {
  /** Who takes the options, as users call it: `LaunchConfig`, `jit()`, `Stream.create`. */
  readonly where: string;
  /** Makes the package's own error from the problem (one error class per package). */
  readonly fail: (problem: OptionProblem) => Error;
  /** The context that the rules' `appliesTo` is checked against, and its name in messages. */
  readonly context?: { readonly id: Context; readonly name: string };
  /** Other libraries' spellings and their names here, for the suggestion. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Refuse objects that are not plain (class instances); by default any non-array object is read by its own keys. */
  readonly plainOnly?: boolean;
  /** Take `null` as absent options, like `undefined` (by default `null` is refused). */
  readonly nullIsAbsent?: boolean;
  /**
   * Return a new plain object of the values read (each key read once), not
   * the options themselves: a getter or Proxy that answers the check with
   * one value cannot give the caller another later.
   */
  readonly snapshot?: boolean;
}

/**
 * Checks an options object against its table: a key that the table does not
 * name is refused with the nearest known name, a value its rule refuses is
 * refused with what is expected, and a rule that does not apply in the
 * context is refused with why. `undefined` and `null` options, and entries
 * whose value is `undefined`, are accepted as absent (`null` options
 * only with `nullIsAbsent`). Returns the options,
 * typed; it copies nothing (symbol-keyed protocol objects stay whole),
 * unless `snapshot` asks for the values read, in a new object.
 */
export function checkOptions<T extends object, Context extends string = string>(
  options: unknown,
  table: OptionTable<Context>,
  settings: CheckOptionsSettings<Context>,
): Readonly<Partial<T>> {
  const { where, fail } = settings;
  if (options === undefined || (options === null && settings.nullIsAbsent)) return {} as Readonly<Partial<T>>;
  if (
    options === null ||
    typeof options !== 'object' ||
    Array.isArray(options) ||
    (settings.plainOnly && !isPlainObject(options))
  ) {
    throw fail({
      kind: 'not-an-object',
      where,
      value: options,
      message: `${where}: the options must be ${settings.plainOnly ? 'a plain object' : 'an object'}; got ${describeValue(options)}`,
    });
  }
  const known = Object.keys(table);
  const snapshot: Record<string, unknown> | undefined = settings.snapshot ? {} : undefined;
  for (const key of Object.keys(options)) {
    const entry = Object.hasOwn(table, key) ? table[key] : undefined;
    if (entry === undefined) {
      const suggestion = suggestName(key, known, settings.aliases);
      throw fail({
        kind: 'unknown',
        where,
        key,
        known,
        suggestion,
        message: unknownOptionMessage(where, key, known, suggestion),
      });
    }
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const rule: OptionRule<Context> = typeof entry === 'function' ? { check: entry } : entry;
    const expected = rule.check(value);
    if (expected !== undefined) {
      throw fail({
        kind: 'invalid',
        where,
        key,
        value,
        expected,
        message: `${where}: option '${key}' must be ${expected}; got ${describeValue(value)}`,
      });
    }
    const context = settings.context;
    if (context !== undefined && rule.appliesTo !== undefined && !rule.appliesTo.includes(context.id)) {
      const reason = rule.notApplicable ?? `it applies only to ${rule.appliesTo.join(', ')}`;
      throw fail({
        kind: 'unsupported',
        where,
        key,
        context: context.name,
        reason,
        message: `${where}: option '${key}' is not supported for ${context.name}: ${reason}`,
      });
    }
    if (snapshot !== undefined) snapshot[key] = value;
  }
  return (snapshot ?? options) as Readonly<Partial<T>>;
}
