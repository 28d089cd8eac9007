/** What was wrong with an options object, with a whole sentence in `message`. */
export type OptionProblem =
  | { readonly kind: 'not-an-object'; readonly where: string; readonly value: unknown; readonly message: string }
  | {
      readonly kind: 'unknown';
      readonly where: string;
      readonly key: string;
      /** Every name that `where` accepts. */
      readonly known: readonly string[];
      /** The closest known name, when one is close. */
      readonly suggestion: string | undefined;
      readonly message: string;
    }
  | {
      readonly kind: 'invalid';
      readonly where: string;
      readonly key: string;
      readonly value: unknown;
      readonly expected: string;
      readonly message: string;
    }
  | {
      readonly kind: 'unsupported';
      readonly where: string;
      readonly key: string;
      readonly context: string;
      readonly reason: string;
      readonly message: string;
    };

/** A value in an error message: short, and never a thrown conversion. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
  }
  return String(value);
}

export function unknownOptionMessage(
  where: string,
  key: string,
  known: readonly string[],
  suggestion: string | undefined,
): string {
  return `${where}: unknown option '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; known options: ${known.length === 0 ? '(none)' : known.join(', ')}`;
}
