// Value checks for option tables: each returns undefined for an acceptable
// value, else what is expected, in words ("true or false").

/** Checks one value: undefined when it is acceptable, else the expectation in words. */
export type ValueCheck = (value: unknown) => string | undefined;

export const isBoolean: ValueCheck = (v) => (typeof v === 'boolean' ? undefined : 'true or false');

export const isString: ValueCheck = (v) => (typeof v === 'string' ? undefined : 'a string');

export const isNonEmptyString: ValueCheck = (v) =>
  typeof v === 'string' && v.length > 0 ? undefined : 'a non-empty string';

export const isArray: ValueCheck = (v) => (Array.isArray(v) ? undefined : 'an array');

export const isFunction: ValueCheck = (v) => (typeof v === 'function' ? undefined : 'a function');

export const isFiniteNumber: ValueCheck = (v) =>
  typeof v === 'number' && Number.isFinite(v) ? undefined : 'a finite number';

/** Any value: the option's own code checks it further (a stream, a device, a view). */
export const isAnything: ValueCheck = () => undefined;

export const isInteger: ValueCheck = (v) => (typeof v === 'number' && Number.isInteger(v) ? undefined : 'an integer');

export function isIntegerIn(min: number, max: number): ValueCheck {
  return (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? undefined
      : `an integer from ${min} to ${max}`;
}

export function isOneOf(values: readonly unknown[]): ValueCheck {
  return (v) =>
    values.includes(v)
      ? undefined
      : `one of ${values.map((x) => (typeof x === 'bigint' ? `${x}n` : JSON.stringify(x))).join(', ')}`;
}

/** Accepts what any of `checks` accepts; the expectation joins theirs with "or". */
export function isEither(...checks: readonly ValueCheck[]): ValueCheck {
  return (v) => {
    const expected: string[] = [];
    for (const check of checks) {
      const e = check(v);
      if (e === undefined) return undefined;
      expected.push(e);
    }
    return expected.join(' or ');
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
