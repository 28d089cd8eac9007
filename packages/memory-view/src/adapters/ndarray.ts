/**
 * `@cuda-js/memory-view/adapters/ndarray`: importing it lets
 * `StridedMemoryView.fromAny` and `fromNdarray` view scijs ndarrays (the
 * `ndarray` package) zero-copy. It exports nothing.
 *
 * @module
 */
import { NotViewableError } from '../errors.js';
import { dtypeOfKind } from '../typed-arrays.js';
import { formatValue } from '../format-value.js';
import { measureView } from '../host-buffer.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import type { NdarrayLike } from './host-arrays.js';
import { hostLayout, viewOfLayout, type HostLayout } from './host-layout.js';
import { registerHostAdapter } from './registry.js';

// ndarray objects are not mutated in place by the library (its methods return new ones).
const layouts = new WeakMap<object, HostLayout>();

/** A zero-copy view of a scijs ndarray over a typed array, its layout read once per ndarray. */
function viewFromNdarray(array: NdarrayLike): StridedMemoryView {
  let layout = layouts.get(array);
  if (layout === undefined) {
    const data = array.data;
    const m = measureView(data);
    if (m === undefined || m.kind === 'DataView') {
      throw new NotViewableError(
        `this ndarray (dtype ${formatValue(array.dtype)}) keeps its data in ${formatValue(data)}, not in a typed array: it has no memory to view`,
      );
    }
    const t = dtypeOfKind(m.kind);
    if (t === undefined) throw new NotViewableError(`this ndarray's data is ${m.kind}, of no known element type`);
    layout = hostLayout('ndarray', m.buffer, m.byteOffset, m.length, array.offset, array.shape, array.stride, t, 0);
    layouts.set(array, layout);
  }
  return viewOfLayout(layout, array);
}

registerHostAdapter('ndarray', viewFromNdarray);
