/** One place that was searched, and why it gave nothing (or what it gave). */
export interface SearchAttempt {
  /** Which search source: `override`, `site-packages`, `conda`, `LD_LIBRARY_PATH`, `ldconfig`, `CUDA_PATH`, ... */
  readonly source: string;
  /** The folder or file looked at, or a description when there is none. */
  readonly location: string;
  /** Why nothing was taken from here. */
  readonly reason: string;
}

function formatAttempts(attempts: readonly SearchAttempt[]): string {
  if (attempts.length === 0) return '  (no place to search)';
  return attempts.map((a, i) => `  ${i + 1}. [${a.source}] ${a.location}: ${a.reason}`).join('\n');
}

/** A CUDA file that pathfinder looked for everywhere it knows and did not find. */
export class NotFoundError extends Error {
  override readonly name: string = 'NotFoundError';
  constructor(
    /** `library`, `header directory` or `libdevice`. */
    readonly kind: string,
    /** The name that was asked for. */
    readonly target: string,
    /** Every place tried, in order. */
    readonly attempts: readonly SearchAttempt[],
    hint?: string,
  ) {
    // the first line is a whole sentence (what callers that show one line keep); the places follow under their own heading
    super(
      `${kind} '${target}' was not found.\nPlaces tried, in order:\n${formatAttempts(attempts)}${hint ? `\n${hint}` : ''}`,
    );
  }
}

/** A shared library was not found (or an override points nowhere). Lists every place tried. */
export class LibraryNotFoundError extends NotFoundError {
  override readonly name = 'LibraryNotFoundError';
  constructor(
    readonly libraryName: string,
    attempts: readonly SearchAttempt[],
    hint?: string,
  ) {
    super('CUDA library', libraryName, attempts, hint);
  }
}

/** A header directory was not found. */
export class HeaderNotFoundError extends NotFoundError {
  override readonly name = 'HeaderNotFoundError';
  constructor(headerName: string, attempts: readonly SearchAttempt[], hint?: string) {
    super('CUDA header directory', headerName, attempts, hint);
  }
}

/** libdevice.10.bc was not found. */
export class LibdeviceNotFoundError extends NotFoundError {
  override readonly name = 'LibdeviceNotFoundError';
  constructor(attempts: readonly SearchAttempt[], hint?: string) {
    super('libdevice', 'libdevice.10.bc', attempts, hint);
  }
}

/** A name that is not in the catalog. */
export class UnknownNameError extends Error {
  override readonly name = 'UnknownNameError';
  constructor(
    readonly kind: string,
    readonly requested: unknown,
    readonly known: readonly string[],
  ) {
    super(`unknown ${kind} ${formatValue(requested)}; known names: ${known.join(', ')}`);
  }
}

/**
 * An environment variable that pathfinder reads holds a value it cannot use
 * (`CUDA_JS_CUDA_MAJOR=twelve`): the message names the variable, its value and
 * what it takes.
 */
export class EnvironmentValueError extends Error {
  override readonly name = 'EnvironmentValueError';
  constructor(
    /** The variable: `CUDA_JS_CUDA_MAJOR`. */
    readonly variable: string,
    /** Its value. */
    readonly value: string,
    /** What it takes, in words: `11, 12 or 13`. */
    readonly expected: string,
  ) {
    super(`${variable} must be ${expected}, not ${formatValue(value)}`);
  }
}

/**
 * A short description of any value for an error message, that never throws
 * (no `JSON.stringify` of objects, which throws on bigints and cycles). The
 * one formatter of this package.
 */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 120 ? `${value.slice(0, 117)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'function') return 'a function';
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  return `an object (${Object.prototype.toString.call(value)})`;
}
