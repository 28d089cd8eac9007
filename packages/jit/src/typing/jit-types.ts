/**
 * The types of the kernel language: scalars and arrays. Scalar types are
 * their names (`'f32'`); array types are canonical frozen objects, so `===`
 * compares types and a signature's key is the join of the types' names.
 */

/** The scalar types that kernels compute with (`f16` is IEEE binary16, `bf16` bfloat16). */
export type ScalarName =
  | 'bool'
  | 'i8'
  | 'u8'
  | 'i16'
  | 'u16'
  | 'i32'
  | 'u32'
  | 'i64'
  | 'u64'
  | 'f16'
  | 'bf16'
  | 'f32'
  | 'f64';

/** Memory order of an array: compact row-major, compact column-major, or any strides. */
export type Layout = 'C' | 'F' | 'A';

/** The type of an array argument: element type, dimensions, layout and whether it may be written. */
export interface ArrayType {
  readonly kind: 'array';
  readonly dtype: ScalarName;
  readonly ndim: 1 | 2 | 3;
  readonly layout: Layout;
  readonly readonly: boolean;
  /**
   * A bare pointer to elements (`pointer(u8)`, numba's `CPointer(uint8)`):
   * 1-D and compact, with no extent the kernel could read; a launch passes
   * a raw device address or an array for it.
   */
  readonly pointer?: true;
  /** `array(f32, 1, 'C')`, with `readonly` appended where it applies; `pointer(u8)`. */
  readonly name: string;
}

/** A type in a kernel signature. */
export type JitType = ScalarName | ArrayType;

export interface ScalarInfo {
  readonly bits: number;
  readonly isFloat: boolean;
  readonly isSigned: boolean;
  /** Bytes as a kernel parameter or array element (bool: 1). */
  readonly bytes: number;
}

export const SCALARS: Readonly<Record<ScalarName, ScalarInfo>> = Object.freeze({
  bool: { bits: 1, isFloat: false, isSigned: false, bytes: 1 },
  i8: { bits: 8, isFloat: false, isSigned: true, bytes: 1 },
  u8: { bits: 8, isFloat: false, isSigned: false, bytes: 1 },
  i16: { bits: 16, isFloat: false, isSigned: true, bytes: 2 },
  u16: { bits: 16, isFloat: false, isSigned: false, bytes: 2 },
  i32: { bits: 32, isFloat: false, isSigned: true, bytes: 4 },
  u32: { bits: 32, isFloat: false, isSigned: false, bytes: 4 },
  i64: { bits: 64, isFloat: false, isSigned: true, bytes: 8 },
  u64: { bits: 64, isFloat: false, isSigned: false, bytes: 8 },
  f16: { bits: 16, isFloat: true, isSigned: true, bytes: 2 },
  bf16: { bits: 16, isFloat: true, isSigned: true, bytes: 2 },
  f32: { bits: 32, isFloat: true, isSigned: true, bytes: 4 },
  f64: { bits: 64, isFloat: true, isSigned: true, bytes: 8 },
});

export const SCALAR_NAMES = Object.freeze(Object.keys(SCALARS) as ScalarName[]);

export function isScalarName(value: unknown): value is ScalarName {
  return typeof value === 'string' && Object.hasOwn(SCALARS, value);
}

export const isFloat = (t: ScalarName): boolean => SCALARS[t].isFloat;
export const isInteger = (t: ScalarName): boolean => !SCALARS[t].isFloat && t !== 'bool';
export const isSigned = (t: ScalarName): boolean => SCALARS[t].isSigned;
export const bitsOf = (t: ScalarName): number => SCALARS[t].bits;
/** f16 and bf16: the 16-bit floats, which compute as their own type but have no arithmetic of their own in every backend. */
export const isHalf = (t: ScalarName): t is 'f16' | 'bf16' => t === 'f16' || t === 'bf16';

const arrays = new Map<string, ArrayType>();

/** The canonical array type (one object per combination). */
export function arrayType(dtype: ScalarName, ndim: 1 | 2 | 3, layout: Layout = 'A', readonly = false): ArrayType {
  // A 1-D array that is C-contiguous is also F-contiguous: one name for both.
  const canonicalLayout = ndim === 1 && layout === 'F' ? 'C' : layout;
  const name = `array(${dtype}, ${ndim}, '${canonicalLayout}')${readonly ? ' readonly' : ''}`;
  let t = arrays.get(name);
  if (!t) {
    t = Object.freeze({ kind: 'array', dtype, ndim, layout: canonicalLayout, readonly, name });
    arrays.set(name, t);
  }
  return t;
}

/** The canonical pointer type of `dtype` (`pointer(u8)`): a 1-D, compact array type with no extent. */
export function pointerType(dtype: ScalarName): ArrayType {
  const name = `pointer(${dtype})`;
  let t = arrays.get(name);
  if (!t) {
    t = Object.freeze({ kind: 'array', dtype, ndim: 1, layout: 'C', readonly: false, pointer: true, name });
    arrays.set(name, t);
  }
  return t;
}

/** Whether `value` is an array type that {@link arrayType} made (by identity: a look-alike object is none). */
export function isMadeArrayType(value: unknown): value is ArrayType {
  if (typeof value !== 'object' || value === null) return false;
  const name: unknown = (value as { name?: unknown }).name;
  return typeof name === 'string' && arrays.get(name) === value;
}

export function isArrayType(t: JitType): t is ArrayType {
  return typeof t === 'object';
}

export function typeName(t: JitType): string {
  return typeof t === 'string' ? t : t.name;
}

/** A signature's cache key: the type names joined. */
export function signatureKey(types: readonly JitType[]): string {
  return types.map(typeName).join(', ');
}
