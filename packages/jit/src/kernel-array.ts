import type { Scalar, ScalarType } from '@cuda-js/core';
import type { ScalarName } from './typing/jit-types.js';

/**
 * The TypeScript types of arrays inside kernels: parameters, shared, local
 * and constant arrays. They describe what the kernel language gives (the
 * typer checks the same rules at run time); no object of these types exists
 * on the host.
 */

/** The dimensions a kernel array may have. */
export type ArrayRank = 1 | 2 | 3;

/** The element types whose values are bigints in kernels (as in BigInt64Array). */
export type BigIntScalarName = 'i64' | 'u64';

/** The element types whose values are numbers in kernels. */
export type NumberScalarName = Exclude<ScalarName, BigIntScalarName | 'bool'>;

/** The value of one element of type `S` in kernel code: a bigint for i64/u64, a boolean for bool, else a number. */
export type KernelElement<S extends ScalarName> = [S] extends [BigIntScalarName]
  ? bigint
  : [S] extends ['bool']
    ? boolean
    : number;

/** `[number]`, `[number, number]` or `[number, number, number]`: one index or extent per dimension. */
export type Indices<N extends ArrayRank> = ArrayRank extends N
  ? number[]
  : N extends 1
    ? [i: number]
    : N extends 2
      ? [i: number, j: number]
      : N extends 3
        ? [i: number, j: number, k: number]
        : number[];

/** A type-only key (no such value exists) that carries a kernel array's element type, for the typed launch to read. */
export declare const KERNEL_ARRAY_ELEMENT: unique symbol;

/** What every {@link KernelArray} has (exported so that declarations that use kernel arrays can name it). */
export interface KernelArrayMembers<S extends ScalarName, N extends ArrayRank> {
  readonly [KERNEL_ARRAY_ELEMENT]?: S;
  /** Elements in all (the product of the extents). */
  readonly size: number;
  readonly ndim: N;
  /** The extents: `x.shape[k]`, with a constant `k`. */
  readonly shape: Readonly<Indices<N>>;
  /** The element at `x.get(i, j, k)` (any layout). */
  get(...indices: Indices<N>): KernelElement<S>;
  /** Stores into `x.set(i, j, k, value)`, converted to the element type as typed arrays do. */
  set(...indicesThenValue: [...Indices<N>, KernelElement<S>]): void;
  /** A view of the elements from `begin` to `end` along the first dimension, with TypedArray's rules (numba's `x[b:e]`); no copy. */
  subarray(begin: number, end?: number): KernelArray<S, N>;
  /** A view of the elements whose first index is `i`, one dimension fewer (numba's `a[i, :]`); of a 1-D array, a 0-d view. */
  row(i: number): KernelRow<S, N>;
}

/** A 0-d view (`x.row(i)` of a 1-D array; numba's `r[()]`): `r.get()` reads its element, `r.set(v)` writes it. */
export interface KernelScalarView<S extends ScalarName> {
  get(): KernelElement<S>;
  set(value: KernelElement<S>): void;
}

/** What `row(i)` of an `N`-D array gives: an `N - 1`-D array, or a 0-d view of a 1-D one. */
export type KernelRow<S extends ScalarName, N extends ArrayRank> = ArrayRank extends N
  ? KernelArray<S> & KernelScalarView<S>
  : N extends 3
    ? KernelArray<S, 2>
    : N extends 2
      ? KernelArray<S, 1>
      : KernelScalarView<S>;

/** What 1-D {@link KernelArray}s have besides. */
export interface OneDimensional<S extends ScalarName> {
  /** `x[i]` (1-D only; `x.get(i, j)` for more). */
  [index: number]: KernelElement<S>;
  /** The extent of a 1-D array. */
  readonly length: number;
}

/**
 * An array in a kernel, of element type `S` (`'f32'`, as in `array(f32, 2)`)
 * and `N` dimensions: the type to give an n-D array parameter,
 * `(img: KernelArray<'f32', 2>) => { img.set(i, j, img.get(i, j) * 2) }`,
 * and the type of `cuda.shared.array`, `cuda.local.array` and
 * `cuda.const.arrayLike`. 1-D arrays also index as `x[i]` and have `length`;
 * a 1-D parameter may as well be typed as its typed array (`Float32Array`).
 * Without arguments it is any array of numbers, of any rank (as the
 * typer decides the rank at launch, TypeScript then takes any index form).
 */
export type KernelArray<S extends ScalarName = NumberScalarName, N extends ArrayRank = ArrayRank> = KernelArrayMembers<
  S,
  N
> &
  (ArrayRank extends N ? OneDimensional<S> : N extends 1 ? OneDimensional<S> : unknown);

/** A type-only key (no such value exists) that carries a kernel pointer's element type, for the typed launch to read. */
export declare const KERNEL_POINTER_ELEMENT: unique symbol;

/**
 * A pointer parameter in a kernel (declared `pointer(u8)` in the kernel's
 * `signatures`, numba's `CPointer(uint8)`): `x[i]` reads and writes its
 * elements; it has no `length` (pass the count as its own parameter).
 * A launch passes a raw device address (a bigint) or an array for it.
 */
export interface KernelPointer<S extends ScalarName = NumberScalarName> {
  /** Type-only (no such member exists): what tells a pointer from other indexable types. */
  readonly [KERNEL_POINTER_ELEMENT]: S;
  [index: number]: KernelElement<S>;
}

/** The element type of each host typed array, as launches read it. */
export interface TypedArrayScalars {
  i8: Int8Array;
  u8: Uint8Array | Uint8ClampedArray;
  i16: Int16Array;
  u16: Uint16Array;
  i32: Int32Array;
  u32: Uint32Array;
  i64: BigInt64Array;
  u64: BigUint64Array;
  f32: Float32Array;
  f64: Float64Array;
}

/** The element type of a host typed array type (`Float32Array` → `'f32'`), or never. */
export type ScalarOfTypedArray<A> = {
  [S in keyof TypedArrayScalars]: A extends TypedArrayScalars[S] ? S : never;
}[keyof TypedArrayScalars];

/**
 * The element type a dtype token names: a scalar maker (`f32` gives
 * `Scalar<'f32'>`), a scalar name (`'f32'`), else any number type (a
 * constant whose maker TypeScript does not know).
 */
export type ScalarOfToken<T> = T extends (value: never) => Scalar<infer S extends ScalarType>
  ? S
  : T extends ScalarName
    ? T
    : NumberScalarName;
