import { dtypeOfScalarType } from '@cuda-js/core';
import type { DType } from '@cuda-js/memory-view';
import { SCALAR_NAMES, type ScalarName } from '../typing/jit-types.js';

// core's table of scalar types and their dtypes, for the scalar types the kernel language has
const SCALAR_OF = new Map<DType, ScalarName>(SCALAR_NAMES.map((scalar) => [dtypeOfScalarType(scalar), scalar]));

/** The element type of the kernel language for an array dtype (`float32` → `f32`), or undefined for dtypes it lacks (complex, float8, vectors, ...). */
export function kernelScalarOf(t: DType): ScalarName | undefined {
  return SCALAR_OF.get(t);
}

/** The array dtype of a scalar type of the kernel language (`f32` → `float32`). */
export function dtypeOfScalar(scalar: ScalarName): DType {
  return dtypeOfScalarType(scalar);
}

/** The dtype names that kernel arrays may hold, for messages. */
export const KERNEL_DTYPE_NAMES: readonly string[] = Object.freeze(
  SCALAR_NAMES.map((scalar) => dtypeOfScalarType(scalar).name),
);
