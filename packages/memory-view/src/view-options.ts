import type { Device } from './device.js';
import type { DTypeLike } from './dtype.js';
import type { ConsumerStream } from './stream.js';

/** Options of the `from*` constructors. */
export interface ViewOptions {
  /** The consumer's stream (see {@link ConsumerStream}); required for CUDA device memory, ignored for host memory. */
  readonly stream?: ConsumerStream | undefined;
  /** `true`: the caller will write; a read-only source is refused with {@link ReadOnlyViewError}. */
  readonly writable?: boolean | undefined;
}

/** Options of {@link StridedMemoryView.fromBuffer}. */
export interface BufferViewOptions {
  /** Element type (default `uint8`). */
  readonly dtype?: DTypeLike | undefined;
  /** Extents (default: one dimension that fills the buffer from `byteOffset`). */
  readonly shape?: readonly number[] | undefined;
  /** Strides in elements (default: compact row-major). */
  readonly strides?: readonly number[] | undefined;
  /** Bytes from the start of the buffer (or of the typed array) to element 0. */
  readonly byteOffset?: number | undefined;
  readonly readonly?: boolean | undefined;
  /** The object to keep alive with the view (default: the buffer or typed array itself). */
  readonly exporter?: unknown;
}

/** Options of {@link StridedMemoryView.fromPointer}. */
export interface PointerViewOptions {
  readonly dtype: DTypeLike;
  readonly shape: readonly number[];
  /** Strides in elements (default: compact row-major). */
  readonly strides?: readonly number[] | undefined;
  /** Where the memory lives (default: CUDA device 0). */
  readonly device?: Device | undefined;
  readonly readonly?: boolean | undefined;
  /** The object that owns the memory: kept alive while any view of it lives. */
  readonly exporter?: unknown;
  /** The stream on which the memory is ready (its last writer), if any. */
  readonly stream?: ConsumerStream | undefined;
  /** Called exactly once when the view and every view derived from it are closed or collected. */
  readonly release?: (() => void) | undefined;
}

/** One entry of {@link StridedMemoryView.slice}: an index (drops the dimension), `[start, stop, step]` (any part may be omitted, `undefined` or `null`, as Python's `None`: `[null, null, -1]` reverses), or `null` (the whole dimension). */
export type SliceSpec = number | readonly [start?: number | null, stop?: number | null, step?: number | null] | null;
