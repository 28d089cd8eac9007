import { formatValue } from './format-value.js';
import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_EXCHANGE_API } from './protocol-keys.js';
import { NotViewableError, ReadOnlyViewError } from './errors.js';
import { isArrayBufferLike } from './host-buffer.js';
import { NO_SYNC, orderStreams, resolveStream } from './stream.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { CHECKED_VIEW_INIT } from './view-init.js';
import type { ViewOptions } from './view-options.js';
import { viewFromDLPack } from './from-dlpack.js';
import { viewFromCudaArrayInterface } from './from-cuda-array-interface.js';
import { viewFromArrayBuffer, viewFromArrayBufferView } from './adapters/typed-array.js';
import { canViewWithHostAdapter, hostAdapterList, viewWithHostAdapter } from './adapters/registry.js';

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
  if (consumer === undefined || consumer === NO_SYNC || view.stream === undefined || consumer === view.stream)
    return view;
  orderStreams(view.stream, consumer, 'the view');
  return new StridedMemoryView(
    {
      ptr: view.ptr,
      buffer: view.buffer,
      byteOffset: view.byteOffset,
      shape: view.shape,
      strides: view.strides,
      dtype: view.dtype,
      device: view._device,
      flags: view.flags,
      exporter: view.exporter,
      stream: consumer,
      source: view._source,
      lease: view._family(),
    },
    CHECKED_VIEW_INIT,
  );
}

function viewFromHost(obj: object): StridedMemoryView {
  if (ArrayBuffer.isView(obj)) return viewFromArrayBufferView(obj);
  if (isArrayBufferLike(obj)) return viewFromArrayBuffer(obj);
  const adapted = viewWithHostAdapter(obj);
  if (adapted !== undefined) return adapted;
  throw new NotViewableError(
    `${formatValue(obj)} implements no array protocol (Symbol.for('dlpack'), Symbol.for('cuda.array_interface')) ` +
      `and is no typed array, DataView, ArrayBuffer or SharedArrayBuffer, nor one of the host adapters' arrays: ${hostAdapterList()}`,
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
  if (viaExchangeApi && exchangeImporter !== undefined && DLPACK_EXCHANGE_API in obj)
    return exchangeImporter(obj, options);
  const view = viewFromHost(obj);
  if (options?.writable === true && view.readonly)
    throw new ReadOnlyViewError(`cannot write through ${formatValue(obj)}: its view is read-only`);
  return view;
}

/**
 * Whether {@link StridedMemoryView.fromAny} can view `obj` (by its shape; the
 * protocol methods are not called). A host array whose adapter subpath was
 * not imported is not viewable.
 */
export function isViewable(obj: unknown): boolean {
  if (StridedMemoryView.isView(obj)) return true;
  if (obj === null || typeof obj !== 'object') return false;
  if (DLPACK in obj || CUDA_ARRAY_INTERFACE in obj) return true;
  if (exchangeImporter !== undefined && DLPACK_EXCHANGE_API in obj) return true;
  return ArrayBuffer.isView(obj) || isArrayBufferLike(obj) || canViewWithHostAdapter(obj);
}
