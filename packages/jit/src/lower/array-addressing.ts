// Where an array element is, by TypedKernel's layouts: 'C'
// `((i0 * s1) + i1) * s2 + i2` (s = extents), 'F' `i0 + s0 * (i1 + s1 * i2)`,
// 'A' `Σ ik * stride_k`; a 1-D 'C' array is `i0`. Offsets are in elements,
// in i64, wrapping (no nsw: the IR gives no promise that they do not).
// Array parameters and the kernel's own memories (shared, local, const:
// compact C-order, see memory-lowering.ts) share this one path, through
// {@link ArrayAccess}.
import type { Layout, ScalarName } from '../typing/jit-types.js';
import type { MemorySpace } from '../typing/typed-ir.js';
import type { ArrayBinding } from './kernel-abi.js';
import { type AddressSpace, memoryType, pointerType } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** Where an array's elements live: a parameter's in global memory, the kernel's own in their space. */
export type ArrayMemory = 'global' | MemorySpace;

/** An array as addressing sees it: a base pointer, a layout, and extents and strides where known. */
export interface ArrayAccess {
  /** For messages: the parameter's type name, or `shared array tile`. */
  readonly description: string;
  readonly dtype: ScalarName;
  readonly ndim: number;
  readonly layout: Layout;
  readonly memory: ArrayMemory;
  /** The pointer to element 0, of type `pointerType(memoryType(dtype), addressSpace)`. */
  readonly base: string;
  readonly addressSpace: AddressSpace;
  /** The extent along `dim` as an i64 operand, or undefined when the kernel does not have it. */
  extent(ctx: LoweringContext, dim: number): string | undefined;
  /** The strides in elements (i64 operands) where they are passed, else undefined (C and F derive them). */
  readonly strides: readonly string[] | undefined;
}

/** A pointer to one element: its operand, the element's type, and where it points. */
export interface ElementPointer {
  readonly ref: string;
  readonly dtype: ScalarName;
  readonly memory: ArrayMemory;
  readonly addressSpace: AddressSpace;
  /** The LLVM type of `ref` (`float*`, `float addrspace(3)*`). */
  readonly type: string;
}

/** The array parameter `binding` as addressing sees it: its data pointer (generic; libNVVM knows it is global). */
export function parameterAccess(binding: ArrayBinding): ArrayAccess {
  const { type } = binding;
  return {
    description: type.name,
    dtype: type.dtype,
    ndim: type.ndim,
    layout: type.layout,
    memory: 'global',
    base: binding.data.ref,
    addressSpace: 0,
    extent: (_ctx, dim) => binding.extents?.[dim]?.ref,
    strides: binding.strides?.map((p) => p.ref),
  };
}

/** The array parameter binding of kernel parameter `index`. */
export function arrayBinding(ctx: LoweringContext, index: number): ArrayBinding {
  const binding = ctx.abi.bindings[index];
  if (binding?.kind !== 'array') throw new LoweringError(`parameter ${index} is not an array`);
  return binding;
}

/** The array that an ElementRef or a `dim` names: parameter `index` without `space`, else memory `index` of that space. */
export function arrayAccess(ctx: LoweringContext, index: number, space: MemorySpace | undefined): ArrayAccess {
  if (space === undefined) return parameterAccess(arrayBinding(ctx, index));
  const memory = ctx.memories[index];
  if (!memory) throw new LoweringError(`memory ${index} does not exist`);
  if (memory.memory !== space)
    throw new LoweringError(`memory ${index} (${memory.description}) is not in ${space} memory`);
  return memory;
}

function extent(ctx: LoweringContext, array: ArrayAccess, dim: number, why: string): string {
  const p = array.extent(ctx, dim);
  if (p === undefined)
    throw new LoweringError(`${why} of ${array.description} needs its extents, but use.shape is false`);
  return p;
}

const INTEGER = /^-?\d+$/;

/** `a * b` in i64, folded when both are constants. */
function multiply(ctx: LoweringContext, a: string, b: string): string {
  if (INTEGER.test(a) && INTEGER.test(b)) return BigInt.asIntN(64, BigInt(a) * BigInt(b)).toString();
  if (a === '1') return b;
  if (b === '1') return a;
  return ctx.builder.compute(`mul i64 ${a}, ${b}`);
}

/**
 * A pointer to the element at `indices` (i64 operands, one per dimension).
 * `getelementptr inbounds` is right here because the pointer is
 * dereferenced at once: an address outside the array is already a fault of
 * the access itself, and negative offsets (views with negative strides)
 * stay inside the allocation the base pointer points into.
 */
export function elementPointer(ctx: LoweringContext, array: ArrayAccess, indices: readonly string[]): ElementPointer {
  const { ndim, layout, dtype } = array;
  if (indices.length !== ndim) throw new LoweringError(`${indices.length} indices for ${array.description}`);
  const b = ctx.builder;
  const mulAdd = (a: string, scale: string, addend: string): string =>
    b.compute(`add i64 ${multiply(ctx, a, scale)}, ${addend}`);
  let offset: string;
  if (layout === 'A') {
    const strides = array.strides;
    if (!strides) throw new LoweringError(`indexing ${array.description} needs its strides, but use.strides is false`);
    offset = b.compute(`mul i64 ${indices[0]!}, ${strides[0]!}`);
    for (let k = 1; k < ndim; k++) offset = mulAdd(indices[k]!, strides[k]!, offset);
  } else if (layout === 'C') {
    offset = indices[0]!;
    for (let k = 1; k < ndim; k++) offset = mulAdd(offset, extent(ctx, array, k, 'indexing'), indices[k]!);
  } else {
    offset = indices[ndim - 1]!;
    for (let k = ndim - 2; k >= 0; k--) offset = mulAdd(offset, extent(ctx, array, k, 'indexing'), indices[k]!);
  }
  const t = memoryType(dtype);
  const type = pointerType(t, array.addressSpace);
  const ref = b.compute(`getelementptr inbounds ${t}, ${type} ${array.base}, i64 ${offset}`);
  return { ref, dtype, memory: array.memory, addressSpace: array.addressSpace, type };
}

/**
 * An array's extent or stride in elements along `dim`, as an i64 operand.
 * Strides of 'C' and 'F' arrays that are not passed follow from the extents.
 */
export function arrayDimension(
  ctx: LoweringContext,
  array: ArrayAccess,
  what: 'shape' | 'stride',
  dim: number,
): string {
  const { ndim, layout } = array;
  if (!Number.isInteger(dim) || dim < 0 || dim >= ndim)
    throw new LoweringError(`dimension ${dim} of ${array.description}`);
  if (what === 'shape') return extent(ctx, array, dim, 'its shape');
  const passed = array.strides?.[dim];
  if (passed) return passed;
  if (layout === 'A')
    throw new LoweringError(`the strides of ${array.description} are needed, but use.strides is false`);
  // C: the product of the later extents; F: of the earlier ones.
  const factors = layout === 'C' ? range(dim + 1, ndim) : range(0, dim);
  let stride = '1';
  for (const k of factors) stride = multiply(ctx, stride, extent(ctx, array, k, 'its strides'));
  return stride;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
