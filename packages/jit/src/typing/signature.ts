import { bf16, bool, f16, f32, f64, i16, i32, i64, i8, u16, u32, u64, u8 } from '@cuda-js/core';
import { KernelTypeError } from '../errors.js';
import type { ScalarOfToken } from '../kernel-array.js';
import { parseNumbaSignature } from './numba-signature.js';
import {
  arrayType,
  isMadeArrayType,
  isScalarName,
  pointerType,
  type ArrayType,
  type JitType,
  type Layout,
  type ScalarName,
} from './jit-types.js';

/** Something that names a type in a signature: a scalar maker (`f32`), its name (`'f32'`), or an {@link array} type. */
export type TypeToken = JitType | ((value: never) => unknown);

// core's scalar makers double as type tokens: `compile([f32, array(f32, 1)])`
const MAKERS = new Map<unknown, ScalarName>([
  [bool, 'bool'],
  [i8, 'i8'],
  [u8, 'u8'],
  [i16, 'i16'],
  [u16, 'u16'],
  [i32, 'i32'],
  [u32, 'u32'],
  [i64, 'i64'],
  [u64, 'u64'],
  [f16, 'f16'],
  [bf16, 'bf16'],
  [f32, 'f32'],
  [f64, 'f64'],
]);

/**
 * An array type for a signature: element type, dimensions (1 to 3) and
 * layout: `'C'` (compact row-major, the default), `'F'` (compact
 * column-major) or `'A'` (any strides). `{ readonly: true }` for arrays the
 * kernel may only read.
 */
export function array<const Token extends TypeToken, const N extends 1 | 2 | 3>(
  dtype: Token,
  ndim: N,
  layout: Layout = 'C',
  options: { readonly readonly?: boolean | undefined } = {},
): ArrayTypeOf<ScalarOfToken<Token>, N> {
  const element = scalarOf(dtype, 'array(dtype, ...)');
  if (ndim !== 1 && ndim !== 2 && ndim !== 3)
    throw new KernelTypeError(`array(${element}, ${String(ndim)}): ndim must be 1, 2 or 3`);
  if (layout !== 'C' && layout !== 'F' && layout !== 'A')
    throw new KernelTypeError(`array(${element}, ${ndim}, ${JSON.stringify(layout)}): layout must be 'C', 'F' or 'A'`);
  return arrayType(element, ndim, layout, options.readonly === true) as ArrayTypeOf<ScalarOfToken<Token>, N>;
}

/**
 * A pointer type for a signature (numba's `CPointer(uint8)`): the kernel
 * indexes it as a 1-D array (`x[i]`) but has no `length` (pass the count as
 * its own parameter), and a launch passes a raw device address (a bigint,
 * checked with the driver to lie in an allocation) or an array of that
 * element type. Only a declared signature makes one: a bigint argument is
 * otherwise an i64.
 */
export function pointer<const Token extends TypeToken>(dtype: Token): PointerTypeOf<ScalarOfToken<Token>> {
  return pointerType(scalarOf(dtype, 'pointer(dtype)')) as PointerTypeOf<ScalarOfToken<Token>>;
}

/** A pointer {@link ArrayType} whose element type TypeScript knows (what {@link pointer} gives). */
export type PointerTypeOf<S extends ScalarName> = ArrayType & {
  readonly dtype: S;
  readonly ndim: 1;
  readonly pointer: true;
};

/** An {@link ArrayType} whose element type and dimensions TypeScript knows (what {@link array} gives). */
export type ArrayTypeOf<S extends ScalarName, N extends 1 | 2 | 3> = ArrayType & {
  readonly dtype: S;
  readonly ndim: N;
};

/** The scalar type a scalar maker (`f32`, ...) stands for, or undefined. */
export function makerType(token: unknown): ScalarName | undefined {
  return MAKERS.get(token);
}

function scalarOf(token: unknown, where: string): ScalarName {
  const made = MAKERS.get(token);
  if (made) return made;
  if (isScalarName(token)) return token;
  const shown =
    typeof token === 'function'
      ? `the function ${token.name || '(anonymous)'}`
      : typeof token === 'string'
        ? `'${token}'`
        : String(token);
  throw new KernelTypeError(
    `${where}: ${shown} is not a scalar type; use f32, f64, f16, bf16, i8, u8, i16, u16, i32, u32, i64, u64 or bool`,
  );
}

/** The scalar type a token names (`f32`, `'f32'`), for `where` in the message. */
export function scalarToken(token: unknown, where: string): ScalarName {
  return scalarOf(token, where);
}

/**
 * A kernel's signature: its parameters' types as tokens
 * (`[f32, array(f32, 1)]`), or as numba writes them
 * (`'void(float32, float32[:])'`: `[:]` any strides, `[::1]` and `[:, ::1]`
 * C order, `[::1, :]` F order).
 */
export type KernelSignature = readonly TypeToken[] | string;

/** The types of a signature given as tokens or as numba's text. */
export function resolveSignature(signature: KernelSignature): JitType[] {
  if (typeof signature === 'string') return numbaKernelSignature(signature);
  if (!Array.isArray(signature))
    throw new KernelTypeError(
      "a signature is an array of types, such as [f32, array(f32, 1), array(f32, 1)], or numba's text, 'void(float32, float32[:], float32[:])'",
    );
  return signature.map((t, i) => {
    if (typeof t !== 'object' || t === null) return scalarOf(t, `signature[${i}]`);
    // recognised by identity: a forged { kind: 'array', dtype: 'bogus', ndim: 7 } was compiled as given
    if (!isMadeArrayType(t))
      throw new KernelTypeError(
        `signature[${i}] is an object that array(dtype, ndim, layout) or pointer(dtype) did not make; use them for array and pointer types`,
      );
    return t;
  });
}

function numbaKernelSignature(text: string): JitType[] {
  const { args, returns } = parseNumbaSignature(text);
  if (returns !== undefined)
    throw new KernelTypeError(
      `signature '${text}': a kernel returns nothing; write 'void(...)' (a device function's result type is its 'returns' option)`,
    );
  return args.map(({ scalar, rank, layout }) => {
    if (rank === undefined) return scalar;
    if (rank !== 1 && rank !== 2 && rank !== 3)
      throw new KernelTypeError(`signature '${text}': arrays have 1 to 3 dimensions; got ${rank}`);
    return arrayType(scalar, rank, layout);
  });
}
