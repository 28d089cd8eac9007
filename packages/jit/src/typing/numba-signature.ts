// Signatures as numba writes them: 'void(float32, float32[:], int32[:, ::1])'
// for kernels (`@cuda.jit('void(...)')`), 'float32(float32, float32)' for
// ufuncs. One reader for both: jit's `signatures` (signature.ts) and the ufunc
// builders (library/ufunc-signature.ts).
import { KernelTypeError } from '../errors.js';
import { isScalarName, type Layout, type ScalarName } from './jit-types.js';
import { nameTable } from './name-table.js';

/** One argument of numba's text: its element type, and for an array its rank and layout (`[:]` any strides, `[::1]` and `[:, ::1]` C order, `[::1, :]` F order). */
export interface NumbaArgument {
  readonly scalar: ScalarName;
  /** The rank its brackets give (`float32[:, :]`: 2); undefined for a scalar. */
  readonly rank: number | undefined;
  readonly layout: Layout | undefined;
}

/** A signature read from numba's text. */
export interface NumbaSignature {
  readonly args: readonly NumbaArgument[];
  /** The result type; undefined for `void`, `none` or none written. */
  readonly returns: ScalarName | undefined;
  /** As written, for messages. */
  readonly text: string;
}

// numba's (and numpy's) names of the scalar types, besides cuda-js's own (f32, i32, ...).
const NUMBA_NAMES: Readonly<Record<string, ScalarName>> = nameTable({
  boolean: 'bool',
  bool_: 'bool',
  b1: 'bool',
  int8: 'i8',
  i1: 'i8',
  uint8: 'u8',
  u1: 'u8',
  int16: 'i16',
  i2: 'i16',
  uint16: 'u16',
  u2: 'u16',
  int32: 'i32',
  i4: 'i32',
  uint32: 'u32',
  u4: 'u32',
  int64: 'i64',
  i8: 'i64',
  intp: 'i64',
  uint64: 'u64',
  u8: 'u64',
  uintp: 'u64',
  float16: 'f16',
  f2: 'f16',
  bfloat16: 'bf16',
  float32: 'f32',
  f4: 'f32',
  float64: 'f64',
  f8: 'f64',
  double: 'f64',
});

/** The longest signature text read: a signature of a few hundred parameters is far shorter. */
const MAX_TEXT_LENGTH = 65536;

function scalarNamed(name: string, text: string): ScalarName {
  // numba's short names (i8 = int64) win over cuda-js's (i8 = int8) inside numba's text only: both are listed here
  // own names only: 'toString' or '__proto__' are no types
  if (Object.hasOwn(NUMBA_NAMES, name)) return NUMBA_NAMES[name]!;
  if (isScalarName(name)) return name;
  throw new KernelTypeError(
    `signature '${text}': unknown type '${name}' (use numba's names, float32, int64, ..., or cuda-js's, f32, i64, ...)`,
  );
}

/** The layout that an array's brackets give: all `:` any strides; `::1` last C order; `::1` first F order. */
function layoutOf(dims: readonly string[], part: string, text: string): Layout {
  const contiguous = dims.map((d) => d === '::1');
  if (!dims.every((d) => d === ':' || d === '::1') || contiguous.filter(Boolean).length > 1) {
    throw new KernelTypeError(
      `signature '${text}': an array type is written name[:], name[:, :], name[:, ::1] (C order) or name[::1, :] (F order); got '${part}'`,
    );
  }
  if (!contiguous.includes(true)) return 'A';
  if (contiguous.at(-1)) return 'C';
  if (contiguous[0]) return 'F';
  throw new KernelTypeError(
    `signature '${text}': '::1' marks the contiguous dimension, the last (C order) or the first (F order); got '${part}'`,
  );
}

function parseArgument(part: string, text: string): NumbaArgument {
  const m = /^([A-Za-z_]\w*)\s*(?:\[([^\]]*)\])?$/.exec(part);
  if (!m) throw new KernelTypeError(`signature '${text}': cannot read the type '${part}'`);
  const scalar = scalarNamed(m[1]!, text);
  if (m[2] === undefined) return { scalar, rank: undefined, layout: undefined };
  const dims = m[2].split(',').map((d) => d.replace(/\s+/g, ''));
  return { scalar, rank: dims.length, layout: layoutOf(dims, part, text) };
}

/** Splits on the commas outside brackets (`float32[:, :], int32`). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/**
 * Reads numba's text: `result(arg, ...)`, `void(arg, ...)` or `(arg, ...)`.
 *
 * @throws {KernelTypeError} for text that is not a signature, or an unknown type name
 */
export function parseNumbaSignature(text: string): NumbaSignature {
  if (text.length > MAX_TEXT_LENGTH)
    throw new KernelTypeError(
      `a signature's text has ${text.length} characters, more than the ${MAX_TEXT_LENGTH} read`,
    );
  // trimmed first (linear): `^\s*(name)?\s*\(` tried every split of a run of spaces, quadratic in its length
  const m = /^([A-Za-z_]\w*)?\s*\(([^()]*)\)$/.exec(text.trim());
  if (!m)
    throw new KernelTypeError(
      `signature '${text}': expected 'result(arg, ...)', as numba writes it ('void(float32, float32[:])', 'float32(float32, float32)')`,
    );
  const inner = m[2]!.trim();
  const args = inner === '' ? [] : splitTopLevel(inner).map((p) => parseArgument(p, text));
  const result = m[1];
  return {
    args,
    returns: result === undefined || result === 'void' || result === 'none' ? undefined : scalarNamed(result, text),
    text,
  };
}
