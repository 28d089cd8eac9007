import { InvalidOptionError, UnknownOptionError, UnsupportedOptionError } from './errors.js';

/** How one option is checked: its value, and where it applies. */
export interface OptionSpec<Context extends string> {
  /** Returns undefined when the value is acceptable, else what is expected, in words. */
  readonly check: (value: unknown) => string | undefined;
  /** The contexts (code types, backends) that accept the option. */
  readonly appliesTo: readonly Context[];
  /** Why the other contexts refuse it. */
  readonly notApplicable?: string;
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

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The known name closest to `name`, when one is close enough to be a likely typo. */
export function suggestOption(name: string, known: readonly string[]): string | undefined {
  const alias = CUDA_CORE_NAMES[name.toLowerCase()];
  if (alias && known.includes(alias)) return alias;
  const simple = (s: string): string => s.toLowerCase().replace(/[_-]/g, '');
  const wanted = simple(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(wanted, simple(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(wanted.length / 3)) ? best : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Checks an options object against its specs: unknown names, wrong values and
 * options that `context` does not accept are named errors. Returns a frozen
 * copy without the entries that are `undefined`.
 */
export function validateOptions<Context extends string, T extends object>(
  where: string,
  options: unknown,
  specs: Readonly<Record<string, OptionSpec<Context>>>,
  context: Context,
  contextName: string,
): Readonly<T> {
  if (options === undefined || options === null) return Object.freeze({}) as T;
  if (!isPlainObject(options)) throw new InvalidOptionError(where, options, 'a plain object');
  const known = Object.keys(specs);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (!spec) throw new UnknownOptionError(key, where, known, suggestOption(key, known));
    if (value === undefined) continue;
    const expected = spec.check(value);
    if (expected !== undefined) throw new InvalidOptionError(key, value, expected);
    if (!spec.appliesTo.includes(context)) {
      throw new UnsupportedOptionError(key, contextName, spec.notApplicable ?? `it applies only to ${spec.appliesTo.join(', ')}`);
    }
    out[key] = freezeDeep(value);
  }
  return Object.freeze(out) as T;
}

function freezeDeep(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(freezeDeep));
  if (isPlainObject(value)) return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, freezeDeep(v)])));
  return value;
}

// Value checks: each returns undefined for an acceptable value, else the expectation.

export const isBoolean = (v: unknown): string | undefined => (typeof v === 'boolean' ? undefined : 'true or false');

export const isNonEmptyString = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? undefined : 'a non-empty string');

export function isIntegerIn(min: number, max: number): (v: unknown) => string | undefined {
  return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? undefined : `an integer from ${min} to ${max}`);
}

export function isOneOf(values: readonly unknown[]): (v: unknown) => string | undefined {
  return (v) => (values.includes(v) ? undefined : `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
}

// Strings reach the compilers as C strings: a NUL inside one would cut it short.
const isCString = (s: unknown): s is string => typeof s === 'string' && !s.includes('\0');

export const isStringArray = (v: unknown): string | undefined =>
  Array.isArray(v) && v.every((s) => isCString(s) && s.length > 0) ? undefined : 'an array of non-empty strings without NUL characters';

export const isStringRecord = (v: unknown): string | undefined =>
  isPlainObject(v) && Object.entries(v).every(([k, s]) => isCString(k) && isCString(s)) ? undefined : 'an object of strings without NUL characters ({ "name.h": "source" })';
