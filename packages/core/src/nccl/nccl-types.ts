import { nccl } from '@cuda-js/bindings';
import { dtype as toDType, formatValue, type DType, type DTypeLike } from '@cuda-js/memory-view';
import { CollectiveArgumentError } from '../errors.js';

/** A reduction of NCCL's: `ncclSum`, `ncclProd`, `ncclMax`, `ncclMin`, `ncclAvg` (the average: the sum divided by the world size). */
export type ReduceOp = 'sum' | 'prod' | 'max' | 'min' | 'avg';

const REDUCE_OPS: Readonly<Record<ReduceOp, number>> = {
  sum: nccl.ncclRedOp_t.ncclSum,
  prod: nccl.ncclRedOp_t.ncclProd,
  max: nccl.ncclRedOp_t.ncclMax,
  min: nccl.ncclRedOp_t.ncclMin,
  avg: nccl.ncclRedOp_t.ncclAvg,
};

/** The ncclRedOp_t of `op` (default `sum`). */
export function reduceOp(op: unknown, what: string): number {
  if (op === undefined) return REDUCE_OPS.sum;
  if (typeof op === 'string' && Object.hasOwn(REDUCE_OPS, op)) return REDUCE_OPS[op as ReduceOp];
  throw new CollectiveArgumentError(
    `${what}: op must be one of ${Object.keys(REDUCE_OPS).join(', ')}, got ${formatValue(op)}`,
  );
}

/** memory-view's dtype names and the NCCL types they are (float8_e4m3fn is CUDA's __nv_fp8_e4m3, NCCL's e4m3). */
const NCCL_TYPES: ReadonlyMap<string, number> = new Map([
  ['int8', nccl.ncclDataType_t.ncclInt8],
  ['uint8', nccl.ncclDataType_t.ncclUint8],
  ['int32', nccl.ncclDataType_t.ncclInt32],
  ['uint32', nccl.ncclDataType_t.ncclUint32],
  ['int64', nccl.ncclDataType_t.ncclInt64],
  ['uint64', nccl.ncclDataType_t.ncclUint64],
  ['float16', nccl.ncclDataType_t.ncclFloat16],
  ['float32', nccl.ncclDataType_t.ncclFloat32],
  ['float64', nccl.ncclDataType_t.ncclFloat64],
  ['bfloat16', nccl.ncclDataType_t.ncclBfloat16],
  ['float8_e4m3fn', nccl.ncclDataType_t.ncclFloat8e4m3],
  ['float8_e5m2', nccl.ncclDataType_t.ncclFloat8e5m2],
]);

/** The names of the dtypes that NCCL reduces. */
export const REDUCIBLE_DTYPES: readonly string[] = [...NCCL_TYPES.keys()];

/** How a call passes elements of a dtype to NCCL: as its own type, or as bytes (`elementsPerItem` uint8 per element). */
export interface NcclElementType {
  readonly type: number;
  readonly elementsPerItem: number;
}

/**
 * The NCCL type for elements of `dtype`. Reductions need a type NCCL
 * computes with (a {@link CollectiveArgumentError} otherwise); calls that only
 * move data (broadcast, all-gather, send, recv) move any other whole-byte
 * dtype (int16, complex64, bool, vectors, ...) as its bytes.
 */
export function ncclElementType(dtype: DType, reducing: boolean, what: string): NcclElementType {
  const native = dtype.lanes === 1 ? NCCL_TYPES.get(dtype.name) : undefined;
  if (native !== undefined) return { type: native, elementsPerItem: 1 };
  if (reducing) {
    throw new CollectiveArgumentError(
      `${what}: NCCL cannot reduce ${dtype.name}; reductions take ${REDUCIBLE_DTYPES.join(', ')}`,
    );
  }
  if (!Number.isInteger(dtype.itemsize))
    throw new CollectiveArgumentError(
      `${what}: ${dtype.name} packs elements into fractions of a byte, which NCCL cannot move one by one`,
    );
  return { type: nccl.ncclDataType_t.ncclUint8, elementsPerItem: dtype.itemsize };
}

/** A dtype option, checked (memory-view's names and objects). */
export function dtypeOption(value: unknown, what: string): DType | undefined {
  if (value === undefined) return undefined;
  try {
    return toDType(value as DTypeLike);
  } catch (error) {
    throw new CollectiveArgumentError(`${what}: dtype: ${(error as Error).message}`, { cause: error });
  }
}
