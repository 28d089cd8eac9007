import { InvalidLayoutError, OutOfBoundsError } from './errors.js';
import { formatValue } from './format-value.js';

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

/** The most dimensions a view may have (DLPack's `ndim` is an int32; numpy allows 64). */
export const MAX_NDIM = 64;

/** 2^64: one past the highest address. */
const ADDRESS_LIMIT = 1n << 64n;

function readLength(value: unknown, what: string, name: string, kind: string): number {
  let isArray: boolean;
  try {
    isArray = Array.isArray(value);
  } catch {
    isArray = false; // a revoked proxy
  }
  if (!isArray) throw new InvalidLayoutError(`${what}: ${name} must be an array of ${kind}, got ${formatValue(value)}`);
  const n: unknown = (value as unknown[]).length;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_NDIM) {
    throw new InvalidLayoutError(
      `${what}: ${name} has ${formatValue(n)} entries; a view has 0 to ${MAX_NDIM} dimensions`,
    );
  }
  return n;
}

/**
 * The extents of `shape`, read once each into a new frozen array: throws
 * {@link InvalidLayoutError} unless it is an array of at most 64
 * non-negative safe integers whose product is a safe integer. The caller's
 * array is not kept (it may change later, or be a Proxy that answers twice).
 */
export function readShape(shape: unknown, what: string): readonly number[] {
  const n = readLength(shape, what, 'shape', 'non-negative integers');
  const out = new Array<number>(n);
  let size = 1;
  for (let i = 0; i < n; i++) {
    const e: unknown = (shape as unknown[])[i];
    if (typeof e !== 'number' || !Number.isSafeInteger(e) || e < 0) {
      throw new InvalidLayoutError(`${what}: shape[${i}] is ${formatValue(e)}; extents must be non-negative integers`);
    }
    out[i] = e;
    size *= e;
  }
  if (!Number.isSafeInteger(size))
    throw new InvalidLayoutError(`${what}: shape [${out.join(', ')}] holds more than 2^53 elements`);
  return Object.freeze(out);
}

/**
 * The strides, read once each into a new frozen array: throws
 * {@link InvalidLayoutError} unless it is an array of safe integers as long as `shape`.
 */
export function readStrides(strides: unknown, shape: readonly number[], what: string): readonly number[] {
  const n = readLength(strides, what, 'strides', 'integers');
  if (n !== shape.length) {
    throw new InvalidLayoutError(
      `${what}: strides has ${n} entries but shape has ${shape.length} (shape [${shape.join(', ')}], strides ${formatValue(strides)})`,
    );
  }
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const s: unknown = (strides as unknown[])[i];
    if (typeof s !== 'number' || !Number.isSafeInteger(s))
      throw new InvalidLayoutError(`${what}: strides[${i}] is ${formatValue(s)}; strides must be integers`);
    out[i] = s === 0 ? 0 : s; // no -0
  }
  return Object.freeze(out);
}

/** Throws {@link InvalidLayoutError} unless `shape` is an array of non-negative safe integers (see {@link readShape}, which also copies). */
export function checkShape(shape: unknown, what: string): asserts shape is readonly number[] {
  readShape(shape, what);
}

/** Throws {@link InvalidLayoutError} unless `strides` is an array of safe integers as long as `shape` (see {@link readStrides}). */
export function checkStrides(
  strides: unknown,
  shape: readonly number[],
  what: string,
): asserts strides is readonly number[] {
  readStrides(strides, shape, what);
}

/**
 * The byte range `[first, end)` relative to element 0 that a layout touches
 * (`[0, 0]` for no element). Throws {@link InvalidLayoutError} when it is not
 * a range of safe integers (a huge stride or extent).
 */
export function byteExtent(
  shape: readonly number[],
  strides: readonly number[],
  itemsize: number,
  what: string,
): [number, number] {
  const [lo, hi] = elementExtent(shape, strides);
  const first = Math.floor(lo * itemsize);
  const end = Math.ceil(hi * itemsize);
  if (
    !Number.isSafeInteger(lo) ||
    !Number.isSafeInteger(hi) ||
    !Number.isSafeInteger(first) ||
    !Number.isSafeInteger(end)
  ) {
    throw new InvalidLayoutError(
      `${what}: shape [${shape.join(', ')}] with strides [${strides.join(', ')}] reaches farther than 2^53 bytes`,
    );
  }
  return [first, end];
}

/**
 * Throws {@link OutOfBoundsError} unless every element of a layout at the
 * address `ptr` lies in `[0, 2^64)`: the memory that an address can name.
 */
export function checkAddress(
  ptr: unknown,
  shape: readonly number[],
  strides: readonly number[],
  itemsize: number,
  what: string,
): asserts ptr is bigint {
  if (typeof ptr !== 'bigint')
    throw new OutOfBoundsError(`${what}: the address is ${formatValue(ptr)}; expected a bigint`);
  if (ptr < 0n || ptr >= ADDRESS_LIMIT)
    throw new OutOfBoundsError(`${what}: address 0x${ptr.toString(16)} is outside [0, 2^64)`);
  const [first, end] = byteExtent(shape, strides, itemsize, what);
  if (first === 0 && end === 0) return;
  if (ptr + BigInt(first) < 0n || ptr + BigInt(end) > ADDRESS_LIMIT) {
    throw new OutOfBoundsError(
      `${what}: the view at 0x${ptr.toString(16)} reaches bytes [${first}, ${end}) from it, outside [0, 2^64)`,
    );
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
  if (!Number.isSafeInteger(byteOffset) || !Number.isSafeInteger(byteLength) || !(itemsize > 0)) {
    throw new OutOfBoundsError(
      `${what}: byte offset ${formatValue(byteOffset)} in a buffer of ${formatValue(byteLength)} bytes (${formatValue(itemsize)} bytes per element) is not a layout`,
    );
  }
  const [lo, hi] = byteExtent(shape, strides, itemsize, what);
  if (lo === 0 && hi === 0) {
    if (!(byteOffset >= 0 && byteOffset <= byteLength))
      throw new OutOfBoundsError(`${what}: byte offset ${byteOffset} lies outside its ${byteLength}-byte buffer`);
    return;
  }
  const first = byteOffset + lo;
  const end = byteOffset + hi;
  // Written so that NaN fails: every comparison with NaN is false.
  if (!(first >= 0 && end <= byteLength)) {
    throw new OutOfBoundsError(
      `${what}: the view reaches bytes [${first}, ${end}) but its buffer holds ${byteLength} bytes ` +
        `(byte offset ${byteOffset}, shape [${shape.join(', ')}], strides [${strides.join(', ')}], ${itemsize} bytes per element)`,
    );
  }
}
