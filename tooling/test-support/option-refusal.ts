// The refusal every options object of the stack gives a misspelt key (the
// shared checker of @cuda-js/options): the package's own error class, the
// problem's fields and the message with the suggestion. The options-refusal
// tests of each package assert it row by row.
import { expect } from 'vitest';
import { errorOf } from './error-of.js';

/** Asserts that `call` refuses the misspelt `key` at `where` with `errorClass`, suggesting `suggestion`. */
export function expectMisspeltOption(
  errorClass: abstract new (...args: never[]) => Error,
  call: () => unknown,
  where: string,
  key: string,
  suggestion: string,
): void {
  const error = errorOf<Error & { problem?: unknown }>(call);
  expect(error).toBeInstanceOf(errorClass);
  expect(error.problem).toMatchObject({ kind: 'unknown', where, key, suggestion });
  expect(error.message).toContain(`${where}: unknown option '${key}' (did you mean '${suggestion}'?)`);
}

/**
 * Options whose getter answers `first` on its first read and `later` on every
 * other: a checker that reads the key twice would check one value and use the
 * other. `reads()` says how often the getter ran.
 */
export function answersTwice(
  key: string,
  first: unknown,
  later: unknown,
  rest: Record<string, unknown> = {},
): { readonly options: object; reads(): number } {
  let reads = 0;
  const options = { ...rest };
  Object.defineProperty(options, key, {
    enumerable: true,
    get: () => {
      reads++;
      return reads === 1 ? first : later;
    },
  });
  return { options, reads: () => reads };
}

/** A Proxy of `target` that counts its get trap's calls per key. */
export function countingProxy(target: Record<string, unknown>): {
  readonly proxy: object;
  readonly gets: Map<PropertyKey, number>;
} {
  const gets = new Map<PropertyKey, number>();
  const proxy = new Proxy(target, {
    get(object, key, receiver) {
      gets.set(key, (gets.get(key) ?? 0) + 1);
      return Reflect.get(object, key, receiver);
    },
  });
  return { proxy, gets };
}

class OptionsInstance {
  constructor(settings: Record<string, unknown>) {
    Object.assign(this, settings);
  }
}

/**
 * Options objects that are no plain objects, made of `settings`: a Map, a
 * class instance with them as own keys, an object that inherits them. Each is refused by a checker
 * that takes plain objects only.
 */
export function nonPlainOptions(
  settings: Record<string, unknown>,
): readonly (readonly [what: string, make: () => object])[] {
  return [
    ['a Map', () => new Map(Object.entries(settings))],
    ['a class instance', () => new OptionsInstance(settings)],
    ['an object that inherits its settings', () => Object.create(settings) as object],
  ];
}
