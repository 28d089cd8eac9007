/**
 * `@cuda-js/memory-view/adapters`: importing it loads every host adapter, so
 * that `StridedMemoryView.fromAny` views scijs ndarrays, stdlib ndarrays and
 * Apache Arrow vectors. Each adapter also has its own subpath
 * (`@cuda-js/memory-view/adapters/ndarray`, `.../stdlib-ndarray`,
 * `.../arrow`). It exports nothing.
 *
 * @module
 */
import './ndarray.js';
import './stdlib-ndarray.js';
import './arrow.js';
