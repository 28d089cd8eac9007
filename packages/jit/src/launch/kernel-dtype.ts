import { dtype, type DType } from '@cuda-js/memory-view';
import type { ScalarName } from '../types/jit-types.js';

/** The memory-view dtype of each scalar type of the kernel language. */
const DTYPE_NAMES: Readonly<Record<ScalarName, string>> = {
  bool: 'bool',
  i8: 'int8',
  u8: 'uint8',
  i16: 'int16',
  u16: 'uint16',
  i32: 'int32',
  u32: 'uint32',
  i64: 'int64',
  u64: 'uint64',
  f32: 'float32',
  f64: 'float64',
};

const SCALAR_OF = new Map<DType, ScalarName>(Object.entries(DTYPE_NAMES).map(([scalar, name]) => [dtype(name), scalar as ScalarName]));

/** The element type of the kernel language for an array dtype (`float32` → `f32`), or undefined for dtypes it lacks (float16, bfloat16, complex, vectors, ...). */
export function kernelScalarOf(t: DType): ScalarName | undefined {
  return SCALAR_OF.get(t);
}

/** The array dtype of a scalar type of the kernel language (`f32` → `float32`). */
export function dtypeOfScalar(scalar: ScalarName): DType {
  return dtype(DTYPE_NAMES[scalar]);
}

/** The dtype names that kernel arrays may hold, for messages. */
export const KERNEL_DTYPE_NAMES: readonly string[] = Object.freeze(Object.values(DTYPE_NAMES));
