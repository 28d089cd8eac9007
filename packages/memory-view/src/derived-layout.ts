import type { SliceSpec } from './view-options.js';
import { InvalidLayoutError } from './errors.js';
import { formatValue } from './format-value.js';
import { compactStrides, isCContiguous, readShape, sizeOf } from './layout.js';

/** The layout of a derived view, relative to its parent: element 0 moved by `shiftElements` (in the parent's elements). */
export interface DerivedLayout {
  readonly shiftElements: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

/** An element type as a retyping sees it: its name (for messages) and its bytes per element as stored. */
export interface StoredType {
  readonly name: string;
  readonly itemsize: number;
}

/**
 * The layout of the same memory seen as elements of another size (numpy's
 * `view(dtype)`): the last dimension is re-scaled and must be contiguous, and
 * every other stride must be a whole number of new elements. Otherwise
 * {@link InvalidLayoutError}.
 */
export function retypedLayout(
  shape: readonly number[],
  strides: readonly number[],
  from: StoredType,
  to: StoredType,
): [number[], number[]] {
  const oldSize = from.itemsize;
  const newSize = to.itemsize;
  const newShape = [...shape];
  const newStrides = [...strides];
  if (oldSize === newSize) return [newShape, newStrides];
  const what = `view: ${from.name} (${oldSize} bytes) as ${to.name} (${newSize} bytes)`;
  if (!Number.isInteger(oldSize) || !Number.isInteger(newSize))
    throw new InvalidLayoutError(`${what}: sub-byte types change size only through DLPack`);
  const last = newShape.length - 1;
  if (last < 0) throw new InvalidLayoutError(`${what}: a 0-d view cannot change its item size`);
  if (newShape[last] !== 1 && newStrides[last] !== 1)
    throw new InvalidLayoutError(`${what}: the last dimension must be contiguous (its stride is ${newStrides[last]})`);
  const lastBytes = newShape[last]! * oldSize;
  if (lastBytes % newSize !== 0)
    throw new InvalidLayoutError(`${what}: the last dimension holds ${lastBytes} bytes, not a multiple of ${newSize}`);
  for (let i = 0; i < last; i++) {
    const bytes = newStrides[i]! * oldSize;
    if (bytes % newSize !== 0)
      throw new InvalidLayoutError(
        `${what}: the stride of dimension ${i} (${bytes} bytes) is not a multiple of ${newSize}`,
      );
    newStrides[i] = bytes / newSize;
  }
  newShape[last] = lastBytes / newSize;
  newStrides[last] = 1;
  return [newShape, newStrides];
}

function readShapeLength(shape: unknown): number {
  let isArray = false;
  try {
    isArray = Array.isArray(shape);
  } catch {
    // a revoked proxy
  }
  const n: unknown = isArray ? (shape as unknown[]).length : undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 64)
    throw new InvalidLayoutError(`view: shape must be an array of up to 64 integers, got ${formatValue(shape)}`);
  return n;
}

/**
 * The compact layout of a C-contiguous view under a new shape of the same
 * size (one extent may be `-1`, inferred). Otherwise {@link InvalidLayoutError}.
 */
export function reshapedLayout(
  shape: readonly number[],
  strides: readonly number[],
  givenShape: unknown,
): [readonly number[], readonly number[]] {
  const n = readShapeLength(givenShape);
  const wanted: number[] = [];
  for (let i = 0; i < n; i++) wanted.push((givenShape as unknown[])[i] as number);
  const size = sizeOf(shape);
  const free = wanted.indexOf(-1);
  if (free !== -1) {
    if (wanted.indexOf(-1, free + 1) !== -1) throw new InvalidLayoutError('view: only one extent may be -1');
    const rest = sizeOf(wanted.filter((_, i) => i !== free));
    if (rest === 0 || size % rest !== 0)
      throw new InvalidLayoutError(`view: cannot infer the -1 extent of [${wanted.join(', ')}] for ${size} elements`);
    wanted[free] = size / rest;
  }
  readShape(wanted, 'view');
  if (sizeOf(wanted) !== size) {
    throw new InvalidLayoutError(
      `view: shape [${wanted.join(', ')}] holds ${sizeOf(wanted)} elements, the view has ${size}`,
    );
  }
  if (!isCContiguous(shape, strides)) {
    throw new InvalidLayoutError(
      `view: a new shape needs a C-contiguous view (strides [${strides.join(', ')}] for shape [${shape.join(', ')}]); copy it first`,
    );
  }
  return [wanted, compactStrides(wanted)];
}

/**
 * The layout that {@link StridedMemoryView.slice} gives: one {@link SliceSpec}
 * per leading dimension (an index drops it; `[start, stop, step]` keeps it,
 * clamped as Python slices are; `null` keeps it whole).
 */
export function slicedLayout(
  shape: readonly number[],
  strides: readonly number[],
  specs: readonly SliceSpec[],
): DerivedLayout {
  if (specs.length > shape.length)
    throw new InvalidLayoutError(`slice: ${specs.length} specs for a ${shape.length}-d view`);
  let shiftElements = 0;
  const newShape: number[] = [];
  const newStrides: number[] = [];
  for (let axis = 0; axis < shape.length; axis++) {
    const extent = shape[axis]!;
    const stride = strides[axis]!;
    const spec = specs[axis] ?? null;
    if (typeof spec === 'number') {
      if (!Number.isInteger(spec) || spec < -extent || spec >= extent)
        throw new InvalidLayoutError(`slice: index ${spec} is out of range for dimension ${axis} of extent ${extent}`);
      shiftElements += (spec < 0 ? spec + extent : spec) * stride;
      continue;
    }
    if (spec === null) {
      newShape.push(extent);
      newStrides.push(stride);
      continue;
    }
    const step = spec[2] ?? 1;
    if (!Number.isInteger(step) || step === 0)
      throw new InvalidLayoutError(`slice: step ${step} of dimension ${axis} must be a non-zero integer`);
    const clamp = (v: number | null | undefined, fallback: number, lo: number, hi: number): number => {
      if (v === undefined || v === null) return fallback;
      if (!Number.isInteger(v)) throw new InvalidLayoutError(`slice: ${v} is not an integer index (dimension ${axis})`);
      const abs = v < 0 ? v + extent : v;
      return Math.min(Math.max(abs, lo), hi);
    };
    let start: number;
    let count: number;
    if (step > 0) {
      start = clamp(spec[0], 0, 0, extent);
      const stop = clamp(spec[1], extent, 0, extent);
      count = stop > start ? Math.ceil((stop - start) / step) : 0;
    } else {
      start = clamp(spec[0], extent - 1, -1, extent - 1);
      const stop = spec[1] === undefined || spec[1] === null ? -1 : clamp(spec[1], -1, -1, extent - 1);
      count = start > stop ? Math.ceil((start - stop) / -step) : 0;
    }
    if (count > 0) shiftElements += start * stride;
    newShape.push(count);
    newStrides.push(stride * step);
  }
  return { shiftElements, shape: newShape, strides: newStrides };
}

/** The dimensions of extent other than 1 (which carry no order): `[1, 3]` and `[3]` hold their elements alike. */
export function squeeze(shape: readonly number[], strides: readonly number[]): [number[], number[]] {
  const keep = shape.map((e) => e !== 1);
  return [shape.filter((_, i) => keep[i]), strides.filter((_, i) => keep[i])];
}
