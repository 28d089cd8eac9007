/**
 * JavaScript source for constants. Every literal is exact and parenthesized
 * where it has a sign, so that it can be placed next to any operator.
 */

export function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '(-Infinity)';
  if (Object.is(value, -0)) return '(-0)';
  // String() of a double round-trips exactly.
  return value < 0 ? `(${String(value)})` : String(value);
}

export function bigintLiteral(value: bigint): string {
  return value < 0n ? `(${value}n)` : `${value}n`;
}

/** Whether `code` is a plain identifier or an unsigned number literal: cheap and free of effects, so it may be repeated. */
export function isRepeatable(code: string): boolean {
  return /^(?:[A-Za-z_$][\w$]*|\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/.test(code);
}
