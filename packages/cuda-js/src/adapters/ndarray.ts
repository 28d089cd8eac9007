/**
 * `cuda-js/adapters/ndarray`: importing it lets `StridedMemoryView.fromAny`, and
 * so a launch, view scijs ndarrays (the `ndarray` package). The same module as
 * `@cuda-js/memory-view/adapters/ndarray`, under the name that an install of
 * `cuda-js` alone resolves. It exports nothing.
 *
 * @module
 */
import '@cuda-js/memory-view/adapters/ndarray';
