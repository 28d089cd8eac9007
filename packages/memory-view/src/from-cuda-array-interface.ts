import { CUDA_ARRAY_INTERFACE } from './protocol-keys.js';
import { DLPackFlags, type CudaArrayInterface } from './protocols.js';
import { layoutOfAnswer } from './cuda-array-interface-reader.js';
import { ProtocolError, ReadOnlyViewError, StreamRequiredError } from './errors.js';
import { NO_SYNC, orderStreams, resolveStream } from './stream.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { CHECKED_VIEW_INIT } from './view-init.js';
import type { ViewOptions } from './view-options.js';

/** @internal `StridedMemoryView.fromCudaArrayInterface`. */
export function viewFromCudaArrayInterface(obj: unknown, options: ViewOptions | undefined): StridedMemoryView {
  const exporter = obj as { [CUDA_ARRAY_INTERFACE]?: unknown };
  if (exporter === null || typeof exporter !== 'object' || typeof exporter[CUDA_ARRAY_INTERFACE] !== 'function') {
    throw new ProtocolError("fromCudaArrayInterface: the object has no Symbol.for('cuda.array_interface') method");
  }
  const consumer = resolveStream(options?.stream);
  const cai = (exporter[CUDA_ARRAY_INTERFACE] as () => CudaArrayInterface)();
  const layout = layoutOfAnswer(cai);
  if (layout.producerStream !== undefined && consumer === undefined) {
    throw new StreamRequiredError(
      'the CUDA array interface names a producer stream, so the consumer stream is needed to wait on it: pass { stream }, or { stream: -1 } for no synchronization',
    );
  }
  if (options?.writable === true && layout.readonly) {
    throw new ReadOnlyViewError('the CUDA array interface exports read-only memory and the caller asked to write');
  }
  orderStreams(layout.producerStream, consumer, 'the CUDA array interface object');
  const stream = consumer === NO_SYNC ? undefined : consumer;
  const flags = layout.readonly ? DLPackFlags.READ_ONLY : 0;
  return new StridedMemoryView(
    {
      ptr: layout.ptr,
      buffer: undefined,
      byteOffset: 0,
      shape: layout.shape,
      strides: layout.strides,
      dtype: layout.dtype,
      device: undefined,
      flags,
      exporter: obj,
      stream,
      source: cai,
      lease: undefined,
    },
    CHECKED_VIEW_INIT,
  );
}
