import {
  checkOptions,
  isPlainObject,
  type OptionProblem,
  type OptionRule,
  type OptionTable,
  suggestName,
} from '@cuda-js/options';
import { InvalidOptionError, UnknownOptionError, UnsupportedOptionError } from './errors.js';

/** How one option is checked: its value, and the contexts (code types, backends) that accept it. */
export interface OptionSpec<Context extends string> extends OptionRule<Context> {
  readonly appliesTo: readonly Context[];
}

/** Names that users of cuda.core (snake_case) may write, and their names here. */
const CUDA_CORE_NAMES: Readonly<Record<string, string>> = {
  max_register_count: 'maxRegisters',
  maxrregcount: 'maxRegisters',
  use_fast_math: 'fastMath',
  relocatable_device_code: 'relocatableDeviceCode',
  rdc: 'relocatableDeviceCode',
  link_time_optimization: 'linkTimeOptimization',
  dlto: 'linkTimeOptimization',
  prec_div: 'precDiv',
  prec_sqrt: 'precSqrt',
  define_macro: 'defines',
  include_path: 'includePaths',
  ptxas_options: 'ptxasOptions',
  xptxas: 'ptxasOptions',
  optimization_level: 'optimizationLevel',
  use_libdevice: 'useLibdevice',
  extra_sources: 'extraModules',
  kernels_used: 'kernelsUsed',
  variables_used: 'variablesUsed',
  optimize_unused_variables: 'optimizeUnusedVariables',
  split_compile: 'splitCompile',
  name_expressions: 'nameExpressions',
  lto: 'linkTimeOptimization',
  opt: 'optimizationLevel',
  g: 'debug',
};

/** The known name closest to `name`, when one is close enough to be a likely typo (cuda.core's names included). */
export function suggestOption(name: string, known: readonly string[]): string | undefined {
  return suggestName(name, known, CUDA_CORE_NAMES);
}

// The package's option errors: a class per kind of problem, under OptionError.
function programOptionError(problem: OptionProblem): Error {
  switch (problem.kind) {
    case 'not-an-object':
      return new InvalidOptionError(problem.where, problem.value, 'a plain object');
    case 'unknown':
      return new UnknownOptionError(problem.key, problem.where, problem.known, problem.suggestion);
    case 'invalid':
      return new InvalidOptionError(problem.key, problem.value, problem.expected);
    case 'unsupported':
      return new UnsupportedOptionError(problem.key, problem.context, problem.reason);
  }
}

/**
 * Checks an options object against its specs with the stack's one checker:
 * unknown names, wrong values and options that `context` does not accept are
 * named errors. Returns a frozen copy without the entries that are `undefined`.
 */
export function validateOptions<Context extends string, T extends object>(
  where: string,
  options: unknown,
  specs: Readonly<Record<string, OptionSpec<Context>>>,
  context: Context,
  contextName: string,
): Readonly<T> {
  const checked = checkOptions<T, Context>(options, specs, {
    where,
    fail: programOptionError,
    context: { id: context, name: contextName },
    aliases: CUDA_CORE_NAMES,
    plainOnly: true,
    nullIsAbsent: true,
    snapshot: true,
  });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(checked)) if (value !== undefined) out[key] = freezeDeep(value);
  return Object.freeze(out) as T;
}

/**
 * Checks a small options object whose names apply everywhere (ObjectCode's
 * init, `clear`, `verifyNvvm`, `toolchainIdentity`) with the same checker and
 * errors as the compile options: a plain object only, each key read once.
 * Use what it returns: the values it checked.
 */
export function checkProgramOptions<T extends object>(
  where: string,
  options: unknown,
  table: OptionTable,
): Readonly<Partial<T>> {
  return checkOptions<T>(options, table, {
    where,
    fail: programOptionError,
    aliases: CUDA_CORE_NAMES,
    nullIsAbsent: true,
    plainOnly: true,
    snapshot: true,
  });
}

function freezeDeep(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(freezeDeep));
  if (isPlainObject(value))
    return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, freezeDeep(v)])));
  return value;
}

// Value checks: the stack's shared ones, and the two that only the compilers need.
export { isBoolean, isIntegerIn, isNonEmptyString, isOneOf } from '@cuda-js/options';

// Strings reach the compilers as C strings: a NUL inside one would cut it short.
const isCString = (s: unknown): s is string => typeof s === 'string' && !s.includes('\0');

export const isStringArray = (v: unknown): string | undefined =>
  Array.isArray(v) && v.every((s) => isCString(s) && s.length > 0)
    ? undefined
    : 'an array of non-empty strings without NUL characters';

export const isStringRecord = (v: unknown): string | undefined =>
  isPlainObject(v) && Object.entries(v).every(([k, s]) => isCString(k) && isCString(s))
    ? undefined
    : 'an object of strings without NUL characters ({ "name.h": "source" })';
