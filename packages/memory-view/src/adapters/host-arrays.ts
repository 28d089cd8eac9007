// The third-party host arrays that the adapter subpaths view, as this package
// reads them, and how each is recognized: by its fields alone, so that the
// main entry tells such an array apart (and names the adapter that views it)
// without loading any adapter or the array library.

/** The fields of a scijs `ndarray` (the `ndarray` package) that a view reads. */
export interface NdarrayLike {
  readonly data: unknown;
  readonly shape: readonly number[];
  /** Strides in elements. */
  readonly stride: readonly number[];
  /** Offset of element 0 in `data`, in elements. */
  readonly offset: number;
  readonly dtype?: string;
}

/** The fields of a stdlib ndarray (`@stdlib/ndarray`) that a view reads. */
export interface StdlibNdarrayLike {
  /** A typed array, or stdlib's Complex64Array / Complex128Array / BooleanArray. */
  readonly data: unknown;
  /** A stdlib data type name (`float64`, `complex64`, `uint8c`, `bool`, ...), or an object whose string is one. */
  readonly dtype: unknown;
  readonly shape: ArrayLike<number>;
  /** Strides in elements. */
  readonly strides: ArrayLike<number>;
  /** Index of element 0 in `data`. */
  readonly offset: number;
  readonly order: string;
  readonly flags?: { readonly READONLY?: boolean };
}

/** The fields of an Apache Arrow data type (`apache-arrow`) that a view reads. */
export interface ArrowTypeLike {
  readonly typeId: number;
  readonly bitWidth?: number;
  readonly isSigned?: boolean;
  readonly precision?: number;
  readonly listSize?: number;
  readonly children?: readonly { readonly type: ArrowTypeLike }[];
}

/** One chunk of an Arrow vector (`Data`). */
export interface ArrowDataLike {
  readonly type: ArrowTypeLike;
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  /** The values of a primitive chunk, starting at its first element (bit-packed for booleans). */
  readonly values?: ArrayBufferView;
  readonly children?: readonly ArrowDataLike[];
}

/** The fields of an Apache Arrow `Vector` that a view reads. */
export interface ArrowVectorLike {
  readonly type: ArrowTypeLike;
  readonly data: readonly ArrowDataLike[];
  readonly length: number;
}

/** Whether `obj` looks like a scijs ndarray (`data`, `shape`, `stride`, `offset`). */
export function isNdarray(obj: object): obj is NdarrayLike {
  return 'stride' in obj && 'offset' in obj && 'shape' in obj && 'data' in obj;
}

/** Whether `obj` looks like a stdlib ndarray (`data`, `dtype`, `shape`, `strides`, `offset`, `order`). */
export function isStdlibNdarray(obj: object): obj is StdlibNdarrayLike {
  return 'strides' in obj && 'order' in obj && 'offset' in obj && 'dtype' in obj && 'data' in obj && 'shape' in obj;
}

/** Whether `obj` looks like an Arrow vector (`type.typeId` and an array of `data` chunks). */
export function isArrowVector(obj: object): obj is ArrowVectorLike {
  if (!('type' in obj && 'data' in obj)) return false;
  const { type, data } = obj as { type: unknown; data: unknown };
  return (
    Array.isArray(data) &&
    type !== null &&
    typeof type === 'object' &&
    typeof (type as { typeId?: unknown }).typeId === 'number'
  );
}
