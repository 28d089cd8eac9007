import { driver } from '@cuda-js/bindings';
import type { DriverTypes } from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import { TensorMapError } from '../errors.js';

/**
 * The element type a tensor map moves: memory-view's dtype names for the
 * types TMA knows, and the three f32 variants that exist only for TMA
 * (`float32_ftz` flushes subnormals; `tfloat32` rounds to TF32 on the way).
 */
export type TensorMapDataType =
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'int32'
  | 'uint64'
  | 'int64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'bfloat16'
  | 'float32_ftz'
  | 'tfloat32'
  | 'tfloat32_ftz';

/** An interleaved layout (`CUtensorMapInterleave`): `'none'`, or 16- or 32-byte channel groups (NC/8HWC8, NC/16HWC16). */
export type TensorMapInterleave = 'none' | '16B' | '32B';

/**
 * How the tile is swizzled across shared-memory banks (`CUtensorMapSwizzle`):
 * 16-byte chunks within a 32-, 64- or 128-byte span, or (newer GPUs) 32- or
 * 64-byte atoms within a 128-byte span.
 */
export type TensorMapSwizzle =
  | 'none'
  | '32B'
  | '64B'
  | '128B'
  | '128B_atom_32B'
  | '128B_atom_32B_flip_8B'
  | '128B_atom_64B';

/** The L2 fetch granularity (`CUtensorMapL2promotion`). */
export type TensorMapL2Promotion = 'none' | '64B' | '128B' | '256B';

/**
 * What out-of-bounds elements read as (`CUtensorMapFloatOOBfill`): `'none'`
 * fills zeros; `'nan_request_zero_fma'` fills a NaN that FMA treats as zero
 * (floating-point types only).
 */
export type TensorMapOOBFill = 'none' | 'nan_request_zero_fma';

const types = driver.CUtensorMapDataType;
const interleaves = driver.CUtensorMapInterleave;
const swizzles = driver.CUtensorMapSwizzle;
const promotions = driver.CUtensorMapL2promotion;
const fills = driver.CUtensorMapFloatOOBfill;

/** @internal Each data type's driver value, its size in bytes, and whether it is floating point. */
export const TENSOR_MAP_DATA_TYPES: Readonly<
  Record<
    TensorMapDataType,
    { readonly value: DriverTypes.CUtensorMapDataType; readonly itemsize: number; readonly float: boolean }
  >
> = {
  uint8: { value: types.CU_TENSOR_MAP_DATA_TYPE_UINT8, itemsize: 1, float: false },
  uint16: { value: types.CU_TENSOR_MAP_DATA_TYPE_UINT16, itemsize: 2, float: false },
  uint32: { value: types.CU_TENSOR_MAP_DATA_TYPE_UINT32, itemsize: 4, float: false },
  int32: { value: types.CU_TENSOR_MAP_DATA_TYPE_INT32, itemsize: 4, float: false },
  uint64: { value: types.CU_TENSOR_MAP_DATA_TYPE_UINT64, itemsize: 8, float: false },
  int64: { value: types.CU_TENSOR_MAP_DATA_TYPE_INT64, itemsize: 8, float: false },
  float16: { value: types.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, itemsize: 2, float: true },
  float32: { value: types.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, itemsize: 4, float: true },
  float64: { value: types.CU_TENSOR_MAP_DATA_TYPE_FLOAT64, itemsize: 8, float: true },
  bfloat16: { value: types.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, itemsize: 2, float: true },
  float32_ftz: { value: types.CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, itemsize: 4, float: true },
  tfloat32: { value: types.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, itemsize: 4, float: true },
  tfloat32_ftz: { value: types.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, itemsize: 4, float: true },
};

/** @internal */
export const TENSOR_MAP_INTERLEAVES: Readonly<Record<TensorMapInterleave, DriverTypes.CUtensorMapInterleave>> = {
  none: interleaves.CU_TENSOR_MAP_INTERLEAVE_NONE,
  '16B': interleaves.CU_TENSOR_MAP_INTERLEAVE_16B,
  '32B': interleaves.CU_TENSOR_MAP_INTERLEAVE_32B,
};

/** @internal Each swizzle's driver value and the span (bytes) that the inner box dimension may not exceed. */
export const TENSOR_MAP_SWIZZLES: Readonly<
  Record<TensorMapSwizzle, { readonly value: DriverTypes.CUtensorMapSwizzle; readonly span: number }>
> = {
  none: { value: swizzles.CU_TENSOR_MAP_SWIZZLE_NONE, span: Infinity },
  '32B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_32B, span: 32 },
  '64B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_64B, span: 64 },
  '128B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_128B, span: 128 },
  '128B_atom_32B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, span: 128 },
  '128B_atom_32B_flip_8B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B, span: 128 },
  '128B_atom_64B': { value: swizzles.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B, span: 128 },
};

/** @internal */
export const TENSOR_MAP_L2_PROMOTIONS: Readonly<Record<TensorMapL2Promotion, DriverTypes.CUtensorMapL2promotion>> = {
  none: promotions.CU_TENSOR_MAP_L2_PROMOTION_NONE,
  '64B': promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
  '128B': promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
  '256B': promotions.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
};

/** @internal */
export const TENSOR_MAP_OOB_FILLS: Readonly<Record<TensorMapOOBFill, DriverTypes.CUtensorMapFloatOOBfill>> = {
  none: fills.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
  nan_request_zero_fma: fills.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
};

/** @internal `table[name]` for a known name (own keys only); otherwise a TensorMapError that lists the names. */
export function lookUpName<K extends string, V>(
  table: Readonly<Record<K, V>>,
  name: unknown,
  option: string,
): { readonly name: K; readonly entry: V } {
  if (typeof name === 'string' && Object.hasOwn(table, name)) return { name: name as K, entry: table[name as K] };
  const known = Object.keys(table)
    .map((k) => `'${k}'`)
    .join(', ');
  throw new TensorMapError(`${option} must be one of ${known}; got ${formatValue(name)}`);
}
