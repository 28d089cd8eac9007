/**
 * Device arrays in a kernel's constants (numba's global device arrays): a
 * core Buffer, a StridedMemoryView, or any object with DLPack or the CUDA
 * array interface, named in `constants` and used by that name in the
 * kernel. The kernel holds the object (its options keep it alive) and
 * passes the array as a hidden argument after its own on every launch, at
 * the address the array has then, so its elements are read and written in
 * place. As the address is an argument, not a constant baked into the code,
 * the compiled kernel is the same for any array of that type: the disk
 * cache keys it by the array's type (in the signature), never by address.
 * Host typed arrays and arrays of numbers in the constants are not these:
 * they are copied into constant memory when the kernel is compiled.
 */
import { Buffer } from '@cuda-js/core';
import { CUDA_ARRAY_INTERFACE, DLPACK, StridedMemoryView } from '@cuda-js/memory-view';

/** A device array as a constant: a Buffer, a StridedMemoryView, or an object with DLPack or the CUDA array interface. */
export type CapturedArrayConstant =
  | Buffer
  | StridedMemoryView
  | { readonly [DLPACK]: unknown }
  | { readonly [CUDA_ARRAY_INTERFACE]: unknown };

/** The constants that are device arrays, in the order of the constants: their names and the objects. */
export interface CapturedArrays {
  readonly names: readonly string[];
  readonly values: readonly unknown[];
}

/** Whether a constant is an array captured by reference (see the module's comment). */
export function isCapturedArray(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return false;
  return (
    value instanceof StridedMemoryView || value instanceof Buffer || DLPACK in value || CUDA_ARRAY_INTERFACE in value
  );
}

export function capturedArraysOf(constants: Readonly<Record<string, unknown>> | undefined): CapturedArrays {
  const entries = Object.entries(constants ?? {}).filter(([, value]) => isCapturedArray(value));
  return Object.freeze({ names: entries.map(([name]) => name), values: entries.map(([, value]) => value) });
}
