import {
  checkOptions,
  isArray,
  isBoolean,
  isOneOf,
  isString,
  type OptionProblem,
  type OptionTableOf,
} from '@cuda-js/options';
import type { SearchOptions } from './search-environment.js';

/** A SearchOptions object with an unknown key (named with the nearest known one) or a wrong value. */
export class SearchOptionError extends Error {
  override readonly name = 'SearchOptionError';
  constructor(
    /** What was wrong: the key, what was expected, the suggestion. */
    readonly problem: OptionProblem,
  ) {
    super(problem.message);
  }
}

const SEARCH_OPTIONS = {
  env: (value) =>
    typeof value === 'object' && value !== null ? undefined : 'an object of environment variables (process.env)',
  sitePackages: isArray,
  loaderCache: isArray,
  defaultToolkitRoot: isString,
  systemDirectories: isBoolean,
  arch: isString,
  loaderDefaultFolders: isArray,
  preferredMajor: isOneOf([11, 12, 13]),
} satisfies OptionTableOf<SearchOptions>;

/**
 * `options` of findLibrary, findHeaderDirectory and findLibdevice, checked
 * with the stack's options checker: a plain object only, each key read once.
 * Use what it returns: the values it checked.
 */
export function checkSearchOptions<T extends object>(where: string, options: unknown): Readonly<Partial<T>> {
  return checkOptions<T>(options, SEARCH_OPTIONS, {
    where,
    fail: (problem) => new SearchOptionError(problem),
    plainOnly: true,
    snapshot: true,
  });
}
