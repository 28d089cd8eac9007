import { NotViewableError } from '../errors.js';
import { dtypeOfKind } from '../typed-arrays.js';
import { formatValue } from '../format-value.js';
import { measureView } from '../host-buffer.js';
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
    const m = measureView(data);
    if (m === undefined || m.kind === 'DataView') {
      throw new NotViewableError(`this ndarray (dtype ${formatValue(array.dtype)}) keeps its data in ${Object.prototype.toString.call(data)}, not in a typed array: it has no memory to view`);
    }
    const t = dtypeOfKind(m.kind);
    if (t === undefined) throw new NotViewableError(`this ndarray's data is ${m.kind}, of no known element type`);
    layout = hostLayout('ndarray', m.buffer, m.byteOffset, m.length, array.offset, array.shape, array.stride, t, 0);
    layouts.set(array, layout);
  }
  return viewOfLayout(layout, array);
}
