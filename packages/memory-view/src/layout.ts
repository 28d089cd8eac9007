import { InvalidLayoutError, OutOfBoundsError } from './errors.js';

/** The strides `[1]` of every 1-d compact view, shared (views never mutate their strides). */
export const ONE_STRIDE: readonly number[] = Object.freeze([1]);

/** Strides of a compact row-major (C-order) array of this shape, in elements. */
export function compactStrides(shape: readonly number[]): number[] {
  const n = shape.length;
  const strides = new Array<number>(n);
  let step = 1;
  for (let i = n - 1; i >= 0; i--) {
    strides[i] = step;
    step *= shape[i]!;
  }
  return strides;
}

/** Strides of a compact column-major (Fortran-order) array of this shape, in elements. */
export function fortranStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let i = 0; i < shape.length; i++) {
    strides[i] = step;
    step *= shape[i]!;
  }
  return strides;
}

/** The number of elements of a shape. */
export function sizeOf(shape: readonly number[]): number {
  let size = 1;
  for (let i = 0; i < shape.length; i++) size *= shape[i]!;
  return size;
}

/** Whether the layout is compact row-major; extents of 1 and empty arrays ignore strides, as numpy does. */
export function isCContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  if (shape.includes(0)) return true;
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const extent = shape[i]!;
    if (extent !== 1 && strides[i] !== step) return false;
    step *= extent;
  }
  return true;
}

/** Whether the layout is compact column-major. */
export function isFContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  if (shape.includes(0)) return true;
  let step = 1;
  for (let i = 0; i < shape.length; i++) {
    const extent = shape[i]!;
    if (extent !== 1 && strides[i] !== step) return false;
    step *= extent;
  }
  return true;
}

/** Throws {@link InvalidLayoutError} unless `shape` is an array of non-negative safe integers. */
export function checkShape(shape: unknown, what: string): asserts shape is readonly number[] {
  if (!Array.isArray(shape)) throw new InvalidLayoutError(`${what}: shape must be an array of non-negative integers, got ${typeof shape}`);
  for (let i = 0; i < shape.length; i++) {
    const e: unknown = shape[i];
    if (typeof e !== 'number' || !Number.isSafeInteger(e) || e < 0) {
      throw new InvalidLayoutError(`${what}: shape[${i}] is ${String(e)}; extents must be non-negative integers`);
    }
  }
}

/** Throws {@link InvalidLayoutError} unless `strides` is an array of safe integers as long as `shape`. */
export function checkStrides(strides: unknown, shape: readonly number[], what: string): asserts strides is readonly number[] {
  if (!Array.isArray(strides)) throw new InvalidLayoutError(`${what}: strides must be an array of integers, got ${typeof strides}`);
  if (strides.length !== shape.length) {
    throw new InvalidLayoutError(`${what}: strides has ${strides.length} entries but shape has ${shape.length} (shape [${shape.join(', ')}], strides [${strides.join(', ')}])`);
  }
  for (let i = 0; i < strides.length; i++) {
    const s: unknown = strides[i];
    if (typeof s !== 'number' || !Number.isSafeInteger(s)) throw new InvalidLayoutError(`${what}: strides[${i}] is ${String(s)}; strides must be integers`);
  }
}

/**
 * The first and one-past-last element offsets (in elements, relative to element
 * 0) that a layout touches: `[0, 0]` when it has no element.
 */
export function elementExtent(shape: readonly number[], strides: readonly number[]): [number, number] {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < shape.length; i++) {
    const extent = shape[i]!;
    if (extent === 0) return [0, 0];
    const reach = (extent - 1) * strides[i]!;
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  return [lo, hi + 1];
}

/**
 * Throws {@link OutOfBoundsError} unless every element of the layout lies in
 * `[0, byteLength)` of its buffer.
 */
export function checkInBuffer(
  byteOffset: number,
  byteLength: number,
  shape: readonly number[],
  strides: readonly number[],
  itemsize: number,
  what: string,
): void {
  const [lo, hi] = elementExtent(shape, strides);
  if (lo === 0 && hi === 0) {
    if (byteOffset < 0 || byteOffset > byteLength) throw new OutOfBoundsError(`${what}: byte offset ${byteOffset} lies outside its ${byteLength}-byte buffer`);
    return;
  }
  const first = byteOffset + lo * itemsize;
  const end = byteOffset + Math.ceil(hi * itemsize);
  if (first < 0 || end > byteLength || !Number.isInteger(byteOffset)) {
    throw new OutOfBoundsError(
      `${what}: the view reaches bytes [${first}, ${end}) but its buffer holds ${byteLength} bytes ` +
        `(byte offset ${byteOffset}, shape [${shape.join(', ')}], strides [${strides.join(', ')}], ${itemsize} bytes per element)`,
    );
  }
}
