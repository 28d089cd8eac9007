/** The memory a strided array's elements cover, from its lowest element to its highest. */
export interface MemorySpan {
  /** Offset of the lowest element from element 0, in elements (0 or negative: strides may be negative). */
  readonly first: number;
  /** Bytes from the lowest element to the end of the highest (0 for an empty array). */
  readonly bytes: number;
}

/**
 * The span of an array of `shape` and `strides` (in elements) with elements
 * of `itemsize` bytes: copying these bytes and keeping the strides copies
 * the array in any layout, the gaps of a strided one included.
 */
export function memorySpan(shape: readonly number[], strides: readonly number[], itemsize: number): MemorySpan {
  let low = 0;
  let high = 0;
  for (let d = 0; d < shape.length; d++) {
    const extent = shape[d]!;
    if (extent === 0) return { first: 0, bytes: 0 };
    const reach = (extent - 1) * strides[d]!;
    if (reach < 0) low += reach;
    else high += reach;
  }
  return { first: low, bytes: (high - low + 1) * itemsize };
}

/**
 * Whether two indices of an array of `shape` and `strides` (in elements)
 * may name one element: a stride of 0 along an extent above 1, or strides
 * that interleave. Sufficient for "apart": taken by |stride|, each
 * dimension steps past all that the smaller ones cover (every layout that
 * slicing, transposing and reshaping make passes; a made-up interleaving
 * that happens to be apart is refused too).
 */
export function mayOverlapItself(shape: readonly number[], strides: readonly number[]): boolean {
  if (shape.some((e) => e === 0)) return false;
  const dims = shape
    .map((extent, d) => ({ extent, stride: Math.abs(strides[d]!) }))
    .filter((x) => x.extent > 1)
    .sort((a, b) => a.stride - b.stride);
  let covered = 1; // elements that the smaller dimensions reach from one element, itself included
  for (const { extent, stride } of dims) {
    if (stride < covered) return true;
    covered = stride * (extent - 1) + covered;
  }
  return false;
}
