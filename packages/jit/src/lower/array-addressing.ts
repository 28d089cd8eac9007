// Where an array element is, by TypedKernel's layouts: 'C'
// `((i0 * s1) + i1) * s2 + i2` (s = extents), 'F' `i0 + s0 * (i1 + s1 * i2)`,
// 'A' `Σ ik * stride_k`; a 1-D 'C' array is `i0`. Offsets are in elements,
// in i64, wrapping (no nsw: the IR gives no promise that they do not).
import type { ArrayBinding } from './kernel-abi.js';
import { memoryType } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** The array binding of kernel parameter `index`. */
export function arrayBinding(ctx: LoweringContext, index: number): ArrayBinding {
  const binding = ctx.abi.bindings[index];
  if (binding?.kind !== 'array') throw new LoweringError(`parameter ${index} is not an array`);
  return binding;
}

function extent(array: ArrayBinding, dim: number, why: string): string {
  const p = array.extents?.[dim];
  if (!p) throw new LoweringError(`${why} of ${array.type.name} needs its extents, but use.shape is false`);
  return p.ref;
}

/**
 * A pointer to the element at `indices` (i64 operands, one per dimension).
 * `getelementptr inbounds` is right here because the pointer is
 * dereferenced at once: an address outside the array is already a fault of
 * the access itself, and negative offsets (views with negative strides)
 * stay inside the allocation the base pointer points into.
 */
export function elementPointer(ctx: LoweringContext, array: ArrayBinding, indices: readonly string[]): string {
  const { ndim, layout, dtype } = array.type;
  if (indices.length !== ndim) throw new LoweringError(`${indices.length} indices for ${array.type.name}`);
  const b = ctx.builder;
  const mulAdd = (a: string, scale: string, addend: string): string => {
    const product = b.compute(`mul i64 ${a}, ${scale}`);
    return b.compute(`add i64 ${product}, ${addend}`);
  };
  let offset: string;
  if (layout === 'A') {
    const strides = array.strides;
    if (!strides) throw new LoweringError(`indexing ${array.type.name} needs its strides, but use.strides is false`);
    offset = b.compute(`mul i64 ${indices[0]!}, ${strides[0]!.ref}`);
    for (let k = 1; k < ndim; k++) offset = mulAdd(indices[k]!, strides[k]!.ref, offset);
  } else if (layout === 'C') {
    offset = indices[0]!;
    for (let k = 1; k < ndim; k++) offset = mulAdd(offset, extent(array, k, 'indexing'), indices[k]!);
  } else {
    offset = indices[ndim - 1]!;
    for (let k = ndim - 2; k >= 0; k--) offset = mulAdd(offset, extent(array, k, 'indexing'), indices[k]!);
  }
  const t = memoryType(dtype);
  return b.compute(`getelementptr inbounds ${t}, ${t}* ${array.data.ref}, i64 ${offset}`);
}

/**
 * An array's extent or stride in elements along `dim`, as an i64 operand.
 * Strides of 'C' and 'F' arrays that are not passed follow from the extents.
 */
export function arrayDimension(ctx: LoweringContext, array: ArrayBinding, what: 'shape' | 'stride', dim: number): string {
  const { ndim, layout } = array.type;
  if (!Number.isInteger(dim) || dim < 0 || dim >= ndim) throw new LoweringError(`dimension ${dim} of ${array.type.name}`);
  if (what === 'shape') return extent(array, dim, 'its shape');
  const passed = array.strides?.[dim];
  if (passed) return passed.ref;
  if (layout === 'A') throw new LoweringError(`the strides of ${array.type.name} are needed, but use.strides is false`);
  // C: the product of the later extents; F: of the earlier ones.
  const factors = layout === 'C' ? range(dim + 1, ndim) : range(0, dim);
  let stride = '1';
  for (const k of factors) stride = stride === '1' ? extent(array, k, 'its strides') : ctx.builder.compute(`mul i64 ${stride}, ${extent(array, k, 'its strides')}`);
  return stride;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
