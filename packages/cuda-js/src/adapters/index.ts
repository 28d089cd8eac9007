/**
 * `cuda-js/adapters`: importing it loads every host adapter, so that
 * `StridedMemoryView.fromAny`, and so a launch, views scijs ndarrays, stdlib
 * ndarrays and Apache Arrow vectors. The same module as
 * `@cuda-js/memory-view/adapters`, under the name that an install of `cuda-js`
 * alone resolves; each adapter also has its own subpath
 * (`cuda-js/adapters/ndarray`, `.../stdlib-ndarray`, `.../arrow`). It exports nothing.
 *
 * @module
 */
import '@cuda-js/memory-view/adapters';
