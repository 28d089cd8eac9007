// Fills the table of StridedMemoryView's static constructors
// (`view-constructors.ts`): this module imports the class and the factories,
// the class imports neither this module nor the factories. Imported for its
// effect by every entry that hands out the class (index.ts, native/index.ts);
// package.json `sideEffects` names those entries and the chunks the build bundles it into, so that bundlers keep
// it (webpack skips the body of a side-effect-free entry, its imports with it).
import { viewFromArrayBufferView } from './adapters/typed-array.js';
import { viewFromAny } from './from-any.js';
import { viewFromBuffer } from './from-buffer.js';
import { viewFromCudaArrayInterface } from './from-cuda-array-interface.js';
import { viewFromDLPack } from './from-dlpack.js';
import { viewFromPointer } from './from-pointer.js';
import { installViewConstructors } from './view-constructors.js';

installViewConstructors({
  fromDLPack: viewFromDLPack,
  fromCudaArrayInterface: viewFromCudaArrayInterface,
  fromAny: (obj, options) => viewFromAny(obj, options),
  fromBuffer: viewFromBuffer,
  fromPointer: viewFromPointer,
  fromTypedArray: viewFromArrayBufferView,
});
