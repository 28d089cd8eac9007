/**
 * `cuda-js/adapters/arrow`: importing it lets `StridedMemoryView.fromAny`, and
 * so a launch, view Apache Arrow vectors. The same module as
 * `@cuda-js/memory-view/adapters/arrow`, under the name that an install of
 * `cuda-js` alone resolves. It exports nothing.
 *
 * @module
 */
import '@cuda-js/memory-view/adapters/arrow';
