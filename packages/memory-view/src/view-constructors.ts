// The factories behind StridedMemoryView's static constructors (fromAny,
// fromDLPack, ...). Each factory makes views, so it imports the class; the
// class must not import the factories back (a cycle of modules: bundlers warn,
// and which top level runs first would depend on the entry). The class calls
// them through this table instead, which `install-view-constructors.ts` fills
// when an entry of the package loads.
import type { StridedMemoryView } from './strided-memory-view.js';
import type { BufferViewOptions, PointerViewOptions, ViewOptions } from './view-options.js';

/** @internal the factories, their options checked already by the static that calls them. */
export interface ViewConstructors {
  fromDLPack(obj: unknown, options: ViewOptions): StridedMemoryView;
  fromCudaArrayInterface(obj: unknown, options: ViewOptions): StridedMemoryView;
  fromAny(obj: unknown, options: ViewOptions | undefined): StridedMemoryView;
  fromBuffer(source: ArrayBufferLike | ArrayBufferView, options: BufferViewOptions): StridedMemoryView;
  fromPointer(ptr: bigint, options: PointerViewOptions): StridedMemoryView;
  fromTypedArray(array: ArrayBufferView): StridedMemoryView;
}

let installed: ViewConstructors | undefined;

/** @internal called once, by `install-view-constructors.ts`. */
export function installViewConstructors(constructors: ViewConstructors): void {
  installed = constructors;
}

/** @internal the factories; every entry of the package installs them before it hands out the class. */
export function viewConstructors(): ViewConstructors {
  if (installed === undefined)
    throw new Error(
      '@cuda-js/memory-view: the view factories are not installed (import the package through its entry, not a file of it)',
    );
  return installed;
}
