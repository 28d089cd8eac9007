declare const handleKind: unique symbol;

/**
 * A CUDA handle or device address: a `bigint` at run time, branded in
 * TypeScript with the C type's name so that a `CUstream` is not passed where a
 * `CUevent` is expected. `0n` is the null handle.
 */
export type Handle<Kind extends string> = bigint & { readonly [handleKind]: Kind };

declare const externalKind: unique symbol;

/**
 * A handle that crosses as an opaque, type-tagged External rather than a
 * `bigint` (NVML's `nvmlDevice_t`): the library dereferences it as given, so
 * only a value that its own functions returned is accepted, and anything else
 * (a bigint, `null`, another kind of External) is a `TypeError` naming the
 * parameter before the library is called.
 */
export type ExternalHandle<Kind extends string> = object & { readonly [externalKind]: Kind };

/** The null handle (`NULL`, and the legacy default stream where a stream is expected). */
export type NullHandle = 0n;

/** Host memory that a C function reads or writes: the bytes of an ArrayBuffer or view, or a raw address. */
export type HostMemory = ArrayBuffer | ArrayBufferView | bigint | null;

/** A C pointer passed as is: the bytes of an ArrayBuffer or view, an address, or `null`. */
export type RawPointer = ArrayBuffer | ArrayBufferView | bigint | null;

/** A C enum as a frozen object: named constants, and each value's name by reverse lookup. */
export type EnumObject<T extends Record<string, number>> = T & { readonly [value: number]: string | undefined };
