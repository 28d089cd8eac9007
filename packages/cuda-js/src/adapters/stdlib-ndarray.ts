/**
 * `cuda-js/adapters/stdlib-ndarray`: importing it lets `StridedMemoryView.fromAny`, and
 * so a launch, view stdlib ndarrays (`@stdlib/ndarray`). The same module as
 * `@cuda-js/memory-view/adapters/stdlib-ndarray`, under the name that an install of
 * `cuda-js` alone resolves. It exports nothing.
 *
 * @module
 */
import '@cuda-js/memory-view/adapters/stdlib-ndarray';
