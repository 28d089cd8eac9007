import type { StridedMemoryView } from '../src/index.js';

/** The elements of a host view in C order, as a plain array (a copy). */
export function values(view: StridedMemoryView): (number | bigint)[] {
  return Array.from(view.toTypedArray() as ArrayLike<number | bigint>);
}
