import type { Scalar } from '@cuda-js/core';
import type {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  NdarrayLike,
  StdlibNdarrayLike,
  StridedMemoryView,
} from '@cuda-js/memory-view';
import type {
  ArrayRank,
  BigIntScalarName,
  KERNEL_ARRAY_ELEMENT,
  KERNEL_POINTER_ELEMENT,
  NumberScalarName,
  ScalarOfTypedArray,
  TypedArrayScalars,
} from '../kernel-array.js';
import type { ScalarName } from '../typing/jit-types.js';

/**
 * The types a launch takes, derived from the kernel function's own
 * parameter types (`kernel.launch(config, ...args)`, `forall(n)(...args)`).
 * Type-level only: the launch checks every argument at run time as well,
 * for JavaScript callers.
 */

/** The host typed array of an element type, where JavaScript has one. */
export type HostTypedArray<S extends ScalarName> = S extends keyof TypedArrayScalars ? TypedArrayScalars[S] : never;

/**
 * What a launch takes for an array parameter of element type `S` and `N`
 * dimensions: the typed array of `S` (1-D), an ndarray over one, or any
 * StridedMemoryView, DLPack or CUDA-array-interface object (their dtype is
 * known at run time only: the launch checks it).
 */
export type ArrayArgument<S extends ScalarName, N extends ArrayRank = ArrayRank> =
  | (1 extends N ? HostTypedArray<S> : never)
  | StridedMemoryView
  | ArrayProtocolObject
  | ([HostTypedArray<S>] extends [never]
      ? NdarrayLike | StdlibNdarrayLike
      : (NdarrayLike | StdlibNdarrayLike) & { readonly data: HostTypedArray<S> });

/** What a launch takes for a pointer parameter ({@link KernelPointer}) of element type `S`: a raw device address, or an array of `S`. */
export type PointerArgument<S extends ScalarName> = bigint | ArrayArgument<S, 1>;

/**
 * An object that implements DLPack or the CUDA array interface: only the
 * key is required here (a library may declare the answer's type its own
 * way); the launch reads and checks the answer.
 */
export type ArrayProtocolObject =
  | { readonly [DLPACK]: (...request: never[]) => unknown }
  | { readonly [CUDA_ARRAY_INTERFACE]: () => unknown };

/** What a launch takes for a number parameter: a number (f64) or a typed scalar of a number type (`f32(2)`, `i32(n)`). */
export type NumberArgument = number | Scalar<NumberScalarName>;
/** What a launch takes for a bigint parameter: a bigint (i64) or `i64(x)`/`u64(x)`. */
export type BigIntArgument = bigint | Scalar<BigIntScalarName>;
/** What a launch takes for a boolean parameter: a boolean or `bool(x)`. */
export type BooleanArgument = boolean | Scalar<'bool'>;

/**
 * What a launch takes for a kernel parameter typed `T`: an array parameter
 * (a typed array, or a {@link KernelArray}) takes arrays of its element
 * type, a pointer parameter ({@link KernelPointer}) a bigint address or such an array, a `number` takes numbers and scalars of number types, a `bigint`
 * bigints and i64/u64 scalars, a `boolean` booleans and `bool(x)`. An
 * untyped parameter (`any`, `unknown`) takes anything.
 */
export type LaunchArgument<T> = [T] extends [never]
  ? unknown
  : unknown extends T
    ? unknown
    : T extends { readonly [KERNEL_POINTER_ELEMENT]: infer S extends ScalarName }
      ? PointerArgument<S>
      : T extends {
            readonly [KERNEL_ARRAY_ELEMENT]?: infer S extends ScalarName;
            readonly ndim: infer N extends ArrayRank;
          }
        ? ArrayArgument<S, N>
        : T extends ArrayBufferView
          ? [ScalarOfTypedArray<T>] extends [never]
            ? T
            : ArrayArgument<ScalarOfTypedArray<T>, 1>
          : T extends number
            ? NumberArgument
            : T extends bigint
              ? BigIntArgument
              : T extends boolean
                ? BooleanArgument
                : T;

/**
 * The launch's argument list for a kernel whose parameters are `P`: one
 * {@link LaunchArgument} per parameter, names kept. For an unknown
 * parameter list (the plain `JitKernel` type) anything goes, so that every
 * typed kernel is a `JitKernel`.
 */
export type LaunchArguments<P extends readonly unknown[]> = unknown[] extends P
  ? // biome-ignore lint/suspicious/noExplicitAny: any, not unknown: a typed kernel's launchers must be assignable to the untyped ones
    any[]
  : { -readonly [K in keyof P]: LaunchArgument<P[K]> };
