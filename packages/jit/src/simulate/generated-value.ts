import type { ScalarName } from '../typing/jit-types.js';

/**
 * A piece of generated JavaScript and how it holds its value. bool is a JS
 * boolean; i8 to u32, f32 and f64 are numbers (always in the type's range,
 * f32 values already rounded); u64 is a bigint. i64 is a bigint too, except
 * where the value is known to be small enough to be exact as a number
 * (indices, extents, loop counters): then `numberBound` is set, because
 * bigint arithmetic would dominate the time of every array access.
 */
export interface GeneratedValue {
  readonly code: string;
  readonly type: ScalarName;
  /** i64 only: `code` is an exact JS number, never -0, whose magnitude is at most this (< 2^53). */
  readonly numberBound?: number;
  /** An i64 constant in number form: the same value as a bigint literal. */
  readonly bigintCode?: string;
}

/** Whether the value is an i64 held as a JS number. */
export function isNumberI64(value: GeneratedValue): boolean {
  return value.numberBound !== undefined;
}

/** The value as a bigint expression (i64 and u64). */
export function bigintCode(value: GeneratedValue): string {
  if (value.numberBound === undefined) return value.code;
  return value.bigintCode ?? `BigInt(${value.code})`;
}

/** An i64 or u64 value as an exact-or-huge JS number (for indices: anything not exact is far out of bounds anyway). */
export function numberCode(value: GeneratedValue): string {
  return value.numberBound === undefined ? `Number(${value.code})` : value.code;
}
