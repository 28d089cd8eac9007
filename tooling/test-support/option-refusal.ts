// The refusal every options object of the stack gives a misspelt key (the
// shared checker of @cuda-js/options): the package's own error class, the
// problem's fields and the message with the suggestion. The options-refusal
// tests of each package assert it row by row.
import { expect } from 'vitest';
import { errorOf } from './error-of.js';

/** Asserts that `call` refuses the misspelt `key` at `where` with `errorClass`, suggesting `suggestion`. */
export function expectMisspeltOption(errorClass: abstract new (...args: never[]) => Error, call: () => unknown, where: string, key: string, suggestion: string): void {
  const error = errorOf<Error & { problem?: unknown }>(call);
  expect(error).toBeInstanceOf(errorClass);
  expect(error.problem).toMatchObject({ kind: 'unknown', where, key, suggestion });
  expect(error.message).toContain(`${where}: unknown option '${key}' (did you mean '${suggestion}'?)`);
}
