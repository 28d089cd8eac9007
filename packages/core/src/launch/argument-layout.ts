import { dtype as toDType, type DType, type DTypeLike, formatValue } from '@cuda-js/memory-view';
import { LaunchArgumentError } from '../errors.js';
import type { KernelParameter } from './kernel-parameters.js';
import { dtypeOfScalarType, isScalarType, SCALAR_SIZES, type ScalarType } from './scalar.js';

/** One JS argument that is one scalar kernel parameter of a given type. */
export interface ScalarSlot {
  readonly kind: 'scalar';
  /** The parameter's C type; `bool` is one byte. */
  readonly type: ScalarType;
  /** For messages. */
  readonly name?: string;
}

/**
 * One JS argument that is an array: its data pointer, then optionally `ndim`
 * i64 extents and `ndim` i64 strides in elements, each its own kernel
 * parameter (the ABI of `@cuda-js/jit`'s kernels). The argument may be a
 * StridedMemoryView (reused across launches at the cost of nothing when
 * unchanged), any object implementing DLPack or the CUDA array interface
 * (viewed implicitly on the launch stream), or a Buffer (its bytes: uint8, 1-D).
 */
export interface ArraySlot {
  readonly kind: 'array';
  /** The dimensions the array must have (1 or more). */
  readonly ndim: number;
  /** Pass the `ndim` extents after the pointer. */
  readonly shape?: boolean;
  /** Pass the `ndim` strides in elements after the pointer (and the extents). */
  readonly strides?: boolean;
  /** The element type the array must have: a memory-view dtype (`'float32'`) or a core scalar type name (`'f32'`); any when absent. */
  readonly dtype?: DTypeLike | ScalarType;
  /** The memory order the array must have: `'C'` or `'F'` contiguous, or `'A'` (any, the default). */
  readonly layout?: 'C' | 'F' | 'A';
  /** The kernel writes the array: a read-only one is refused. */
  readonly writable?: boolean;
  /** For messages. */
  readonly name?: string;
}

/** What one JS argument of a launch fills in the kernel's parameter list. */
export type ArgumentSlot = ScalarSlot | ArraySlot;

/** An argument layout: one slot per JS argument, in order, filling the kernel's parameters in order. */
export type ArgumentLayout = readonly ArgumentSlot[];

/** @internal A slot with its parameters found and its dtype resolved, as the packer reads it. */
export interface PlannedSlot {
  readonly slot: ArgumentSlot;
  /** Index of its first kernel parameter. */
  readonly first: number;
  readonly scalarType: ScalarType | undefined;
  readonly ndim: number;
  readonly shape: boolean;
  readonly strides: boolean;
  readonly dtype: DType | undefined;
  readonly layout: 'C' | 'F' | 'A';
  readonly writable: boolean;
  readonly name: string | undefined;
}

function resolveDType(spec: DTypeLike | ScalarType): DType {
  return isScalarType(spec) ? dtypeOfScalarType(spec) : toDType(spec);
}

/**
 * Lays `layout` over the kernel's parameters and checks that each slot's
 * parameters have the sizes it writes, and that the slots fill them all.
 */
export function planLayout(
  layout: ArgumentLayout,
  parameters: readonly KernelParameter[],
  kernelName: string,
): PlannedSlot[] {
  if (!Array.isArray(layout))
    throw new TypeError(
      `${kernelName}: an argument layout is an array of slots ({ kind: 'scalar', type } or { kind: 'array', ndim, ... })`,
    );
  const planned: PlannedSlot[] = [];
  let next = 0;
  const take = (i: number, size: number, what: string, name: string | undefined): void => {
    const p = parameters[next];
    if (p === undefined) {
      throw new LaunchArgumentError(
        kernelName,
        i,
        `the layout puts ${what} in kernel parameter ${next}, but the kernel has only ${parameters.length} parameter(s)`,
        name,
      );
    }
    if (p.size !== size)
      throw new LaunchArgumentError(
        kernelName,
        i,
        `the layout puts ${what} (${size} bytes) in kernel parameter ${next}, which is ${p.size} bytes`,
        name,
      );
    next++;
  };
  const slots: readonly ArgumentSlot[] = layout;
  slots.forEach((slot, i) => {
    const first = next;
    const name = slot?.name;
    if (slot?.kind === 'scalar') {
      const size = Object.hasOwn(SCALAR_SIZES, slot.type) ? SCALAR_SIZES[slot.type] : undefined;
      if (size === undefined) {
        throw new LaunchArgumentError(
          kernelName,
          i,
          `unknown scalar type ${formatValue(slot.type)} (known: ${Object.keys(SCALAR_SIZES).join(', ')})`,
          name,
        );
      }
      take(i, size, `a ${slot.type}`, name);
      planned.push({
        slot,
        first,
        scalarType: slot.type,
        ndim: 0,
        shape: false,
        strides: false,
        dtype: undefined,
        layout: 'A',
        writable: false,
        name,
      });
    } else if (slot?.kind === 'array') {
      const { ndim } = slot;
      if (!Number.isInteger(ndim) || ndim < 1)
        throw new LaunchArgumentError(
          kernelName,
          i,
          `an array slot's ndim must be a positive integer, got ${formatValue(ndim)}`,
          name,
        );
      const layoutKind = slot.layout ?? 'A';
      if (layoutKind !== 'C' && layoutKind !== 'F' && layoutKind !== 'A')
        throw new LaunchArgumentError(
          kernelName,
          i,
          `an array slot's layout is 'C', 'F' or 'A', got ${formatValue(layoutKind)}`,
          name,
        );
      take(i, 8, 'the data pointer', name);
      const shape = slot.shape === true;
      const strides = slot.strides === true;
      if (shape) for (let d = 0; d < ndim; d++) take(i, 8, `extent ${d} (i64)`, name);
      if (strides) for (let d = 0; d < ndim; d++) take(i, 8, `stride ${d} (i64)`, name);
      const dtype = slot.dtype === undefined ? undefined : resolveDType(slot.dtype);
      planned.push({
        slot,
        first,
        scalarType: undefined,
        ndim,
        shape,
        strides,
        dtype,
        layout: layoutKind,
        writable: slot.writable === true,
        name,
      });
    } else {
      throw new LaunchArgumentError(
        kernelName,
        i,
        `a slot is { kind: 'scalar', type } or { kind: 'array', ndim, ... }, got ${formatValue(slot)}`,
      );
    }
  });
  if (next !== parameters.length) {
    throw new TypeError(
      `${kernelName}: the argument layout fills ${next} kernel parameter(s), but the kernel has ${parameters.length}`,
    );
  }
  return planned;
}
