import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_EXCHANGE_API } from './protocol-keys.js';
import { NotViewableError, ReadOnlyViewError } from './errors.js';
import { isArrayBufferLike } from './host-buffer.js';
import { NO_SYNC, orderStreams, resolveStream } from './stream.js';
import { StridedMemoryView, type ViewOptions } from './strided-memory-view.js';
import { viewFromDLPack } from './from-dlpack.js';
import { viewFromCudaArrayInterface } from './from-cuda-array-interface.js';
import { viewFromArrayBuffer, viewFromArrayBufferView } from './adapters/typed-array.js';
import { isNdarray, viewFromNdarray } from './adapters/ndarray.js';
import { isStdlibNdarray, viewFromStdlibNdarray } from './adapters/stdlib-ndarray.js';
import { isArrowVector, viewFromArrow } from './adapters/arrow.js';

type ExchangeImporter = (obj: object, options: ViewOptions | undefined) => StridedMemoryView;
let exchangeImporter: ExchangeImporter | undefined;

/** @internal Set by `@cuda-js/memory-view/native` when it loads: views objects that only offer the C exchange API. */
export function setExchangeApiImporter(importer: ExchangeImporter | undefined): void {
  exchangeImporter = importer;
}

/** A view passed again: the same object, ordered on the new consumer stream where it has to be. */
function reuseView(view: StridedMemoryView, options: ViewOptions | undefined): StridedMemoryView {
  view._checkOpen('view it');
  if (options === undefined) return view;
  if (options.writable === true) view.requireWritable('write through it');
  const consumer = resolveStream(options.stream);
  if (consumer === undefined || consumer === NO_SYNC || view.stream === undefined || consumer === view.stream) return view;
  orderStreams(view.stream, consumer, 'the view');
  return new StridedMemoryView(view.ptr, view.buffer, view.byteOffset, view.shape, view.strides, view.dtype, view._device, view.flags, view.exporter, consumer, view._source, view._family());
}

function viewFromHost(obj: object): StridedMemoryView {
  if (ArrayBuffer.isView(obj)) return viewFromArrayBufferView(obj);
  if (isArrayBufferLike(obj)) return viewFromArrayBuffer(obj);
  if (isStdlibNdarray(obj)) return viewFromStdlibNdarray(obj);
  if (isNdarray(obj)) return viewFromNdarray(obj);
  if (isArrowVector(obj)) return viewFromArrow(obj);
  throw new NotViewableError(
    `${Object.prototype.toString.call(obj)} implements no array protocol (Symbol.for('dlpack'), Symbol.for('cuda.array_interface')) ` +
      'and is no typed array, DataView, ArrayBuffer, SharedArrayBuffer, ndarray, stdlib ndarray or Arrow vector',
  );
}

/**
 * @internal `StridedMemoryView.fromAny`. `viaExchangeApi: false` skips the C
 * exchange API: the native helper itself views objects that way for its table.
 */
export function viewFromAny(obj: unknown, options: ViewOptions | undefined, viaExchangeApi = true): StridedMemoryView {
  if (StridedMemoryView.isView(obj)) return reuseView(obj, options);
  if (obj === null || typeof obj !== 'object') {
    throw new NotViewableError(`a ${obj === null ? 'null' : typeof obj} cannot be viewed; pass an array object`);
  }
  if (DLPACK in obj) return viewFromDLPack(obj, options);
  if (CUDA_ARRAY_INTERFACE in obj) return viewFromCudaArrayInterface(obj, options);
  if (viaExchangeApi && exchangeImporter !== undefined && DLPACK_EXCHANGE_API in obj) return exchangeImporter(obj, options);
  const view = viewFromHost(obj);
  if (options?.writable === true && view.readonly) throw new ReadOnlyViewError(`cannot write through ${Object.prototype.toString.call(obj)}: its view is read-only`);
  return view;
}

/** Whether {@link StridedMemoryView.fromAny} can view `obj` (by its shape; the protocol methods are not called). */
export function isViewable(obj: unknown): boolean {
  if (StridedMemoryView.isView(obj)) return true;
  if (obj === null || typeof obj !== 'object') return false;
  if (DLPACK in obj || CUDA_ARRAY_INTERFACE in obj) return true;
  if (exchangeImporter !== undefined && DLPACK_EXCHANGE_API in obj) return true;
  return ArrayBuffer.isView(obj) || isArrayBufferLike(obj) || isStdlibNdarray(obj) || isNdarray(obj) || isArrowVector(obj);
}
