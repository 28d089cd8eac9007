import { NotViewableError } from '../errors.js';
import { dtypeOfTypedArray } from '../typed-arrays.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import { hostLayout, viewOfLayout, type HostLayout } from './host-layout.js';

/** The fields of a scijs `ndarray` (the `ndarray` package) that a view reads. */
export interface NdarrayLike {
  readonly data: unknown;
  readonly shape: readonly number[];
  /** Strides in elements. */
  readonly stride: readonly number[];
  /** Offset of element 0 in `data`, in elements. */
  readonly offset: number;
  readonly dtype?: string;
}

/** Whether `obj` looks like a scijs ndarray (`data`, `shape`, `stride`, `offset`). */
export function isNdarray(obj: object): obj is NdarrayLike {
  return 'stride' in obj && 'offset' in obj && 'shape' in obj && 'data' in obj;
}

// ndarray objects are not mutated in place by the library (its methods return new ones).
const layouts = new WeakMap<object, HostLayout>();

/** @internal */
export function viewFromNdarray(array: NdarrayLike): StridedMemoryView {
  let layout = layouts.get(array);
  if (layout === undefined) {
    const data = array.data;
    if (!ArrayBuffer.isView(data) || data instanceof DataView) {
      throw new NotViewableError(`this ndarray (dtype '${String(array.dtype)}') keeps its data in ${Object.prototype.toString.call(data)}, not in a typed array: it has no memory to view`);
    }
    const t = dtypeOfTypedArray(data);
    if (t === undefined) throw new NotViewableError(`this ndarray's data is ${Object.prototype.toString.call(data)}, of no known element type`);
    const length = (data as Uint8Array).length;
    layout = hostLayout('ndarray', data.buffer, data.byteOffset, length, array.offset, array.shape, array.stride, t, 0);
    layouts.set(array, layout);
  }
  return viewOfLayout(layout, array);
}
