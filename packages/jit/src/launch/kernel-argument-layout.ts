import type { ArgumentLayout, ArgumentSlot } from '@cuda-js/core';
import type { KernelParam } from '../typing/typed-ir.js';

/**
 * The argument layout of a typed kernel for core's LaunchPlan: the ABI of
 * {@link TypedKernel} (a scalar is one value of its type, bool as one byte;
 * an array is its data pointer, then ndim i64 extents if `use.shape`, then
 * ndim i64 strides in elements if `use.strides`), with each array's dtype,
 * dimensions and layout, so that the packer checks what it is given.
 */
export function kernelArgumentLayout(params: readonly KernelParam[]): ArgumentLayout {
  return params.map((p): ArgumentSlot => {
    if (p.kind === 'scalar') return { kind: 'scalar', type: p.type, name: p.name };
    return {
      kind: 'array',
      ndim: p.type.ndim,
      shape: p.use.shape,
      strides: p.use.strides,
      dtype: p.type.dtype,
      layout: p.type.layout,
      writable: p.use.written,
      name: p.name,
    };
  });
}
