import { CUDA_ARRAY_INTERFACE } from './protocol-keys.js';
import { DLPackFlags, type CudaArrayInterface } from './protocols.js';
import { dtypeFromTypestr, type DType } from './dtype.js';
import { InvalidLayoutError, OutOfBoundsError, ProtocolError, ReadOnlyViewError, StreamRequiredError } from './errors.js';
import { formatValue } from './format-value.js';
import { checkAddress, compactStrides, readShape, readStrides } from './layout.js';
import { NO_SYNC, orderStreams, resolveStream } from './stream.js';
import { StridedMemoryView, type ViewOptions } from './strided-memory-view.js';

/** What one CUDA array interface object says, read once. */
interface InterfaceLayout {
  readonly ptr: bigint;
  readonly flags: number;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly producerStream: bigint | undefined;
}

// Frozen interface objects cannot change, so what they say is read once per object.
const layouts = new WeakMap<object, InterfaceLayout>();

function readLayout(cai: CudaArrayInterface): InterfaceLayout {
  if (cai === null || typeof cai !== 'object') throw new ProtocolError(`Symbol.for('cuda.array_interface') returned ${formatValue(cai)}; expected an object`);
  // Every field is read once and copied as validated primitives.
  const version: unknown = cai.version;
  if (typeof version !== 'number' || !(version >= 3)) {
    throw new ProtocolError(`CUDA array interface version ${formatValue(version)} is not supported; version 3 or later is required`);
  }
  const mask: unknown = cai.mask;
  if (mask !== undefined && mask !== null) throw new ProtocolError('the CUDA array interface has a mask; masked arrays are not supported');
  const t = dtypeFromTypestr(cai.typestr);
  const shape = readShape(cai.shape, 'CUDA array interface');
  const data: unknown = cai.data;
  let isArray = false;
  try {
    isArray = Array.isArray(data);
  } catch {
    // a revoked proxy
  }
  if (!isArray || (data as unknown[]).length !== 2) throw new ProtocolError('the CUDA array interface data must be [address, readOnly]');
  const address: unknown = (data as unknown[])[0];
  const readOnly: unknown = (data as unknown[])[1];
  let ptr: bigint;
  if (typeof address === 'bigint') ptr = address;
  else if (typeof address === 'number' && Number.isSafeInteger(address) && address >= 0) ptr = BigInt(address);
  else throw new ProtocolError(`the CUDA array interface address is ${formatValue(address)}; expected a bigint (or a safe integer)`);
  const givenStrides: unknown = cai.strides;
  let strides: readonly number[];
  if (givenStrides === null || givenStrides === undefined) {
    strides = compactStrides(shape);
  } else {
    const bytes = readStrides(givenStrides, shape, 'CUDA array interface');
    const itemsize = t.itemsize;
    strides = Object.freeze(
      bytes.map((b, i) => {
        if (b % itemsize !== 0) {
          throw new InvalidLayoutError(`CUDA array interface: stride ${b} bytes of dimension ${i} is not a whole number of ${t.name} elements (${itemsize} bytes)`);
        }
        return b / itemsize;
      }),
    );
  }
  if (ptr < 0n || ptr >= 1n << 64n) throw new OutOfBoundsError(`the CUDA array interface address ${formatValue(ptr)} is outside [0, 2^64)`);
  checkAddress(ptr, shape, strides, t.itemsize, 'CUDA array interface');
  const s: unknown = cai.stream;
  let producerStream: bigint | undefined;
  if (s === undefined || s === null) producerStream = undefined;
  else if (s === 0 || s === 0n) throw new ProtocolError('the CUDA array interface stream is 0, which version 3 forbids (1 is the legacy default stream, 2 the per-thread one)');
  else if (typeof s === 'bigint' && s > 0n && s < 1n << 64n) producerStream = s;
  else if (typeof s === 'number' && Number.isSafeInteger(s) && s > 0) producerStream = BigInt(s);
  else throw new ProtocolError(`the CUDA array interface stream is ${formatValue(s)}; expected a positive integer, null or undefined`);
  return { ptr, flags: readOnly ? DLPackFlags.READ_ONLY : 0, dtype: t, shape, strides, producerStream };
}

/** @internal `StridedMemoryView.fromCudaArrayInterface`. */
export function viewFromCudaArrayInterface(obj: unknown, options: ViewOptions | undefined): StridedMemoryView {
  const exporter = obj as { [CUDA_ARRAY_INTERFACE]?: unknown };
  if (exporter === null || typeof exporter !== 'object' || typeof exporter[CUDA_ARRAY_INTERFACE] !== 'function') {
    throw new ProtocolError("fromCudaArrayInterface: the object has no Symbol.for('cuda.array_interface') method");
  }
  const consumer = resolveStream(options?.stream);
  const cai = (exporter[CUDA_ARRAY_INTERFACE] as () => CudaArrayInterface)();
  let layout = layouts.get(cai);
  if (layout === undefined) {
    layout = readLayout(cai);
    if (Object.isFrozen(cai)) layouts.set(cai, layout);
  }
  if (layout.producerStream !== undefined && consumer === undefined) {
    throw new StreamRequiredError('the CUDA array interface names a producer stream, so the consumer stream is needed to wait on it: pass { stream }, or { stream: -1 } for no synchronization');
  }
  if (options?.writable === true && layout.flags & DLPackFlags.READ_ONLY) {
    throw new ReadOnlyViewError('the CUDA array interface exports read-only memory and the caller asked to write');
  }
  orderStreams(layout.producerStream, consumer, 'the CUDA array interface object');
  const stream = consumer === NO_SYNC ? undefined : consumer;
  return new StridedMemoryView(layout.ptr, undefined, 0, layout.shape, layout.strides, layout.dtype, undefined, layout.flags, obj, stream, cai, undefined);
}
