import { InvalidLayoutError, OutOfBoundsError, ReadOnlyViewError, UnknownDTypeError } from './errors.js';
import { squeeze } from './derived-layout.js';
import { compactStrides } from './layout.js';
import { copyStrided } from './strided-copy.js';
import type { StridedMemoryView } from './strided-memory-view.js';
import { typedArrayFor, type AnyTypedArray } from './typed-arrays.js';

/**
 * The most bytes that {@link StridedMemoryView.toTypedArray} and
 * {@link StridedMemoryView.copyFrom} allocate for one copy (4 GiB): a view of
 * a few bytes may claim billions of elements through zero strides.
 */
export const MAX_HOST_COPY_BYTES = 2 ** 32;

function checkCopySize(bytes: number, what: string): void {
  if (!(bytes <= MAX_HOST_COPY_BYTES)) {
    throw new OutOfBoundsError(
      `${what}: a copy of ${bytes} bytes is larger than the ${MAX_HOST_COPY_BYTES}-byte limit of host copies (a broadcast view, through zero strides, can claim more elements than its memory holds)`,
    );
  }
}

/** @internal `StridedMemoryView.typedArray`: an alias of a C-contiguous host view's memory. */
export function aliasingTypedArray(view: StridedMemoryView, access: 'read' | 'write'): AnyTypedArray {
  const { buffer, byteOffset } = view._hostMemory('make a typed array');
  if (access === 'write' && view.readonly) {
    throw new ReadOnlyViewError(
      "typedArray(): the view is read-only, and typedArray() (access 'write') is for writing; typedArray('read') aliases its memory for reading, toTypedArray() makes a writable copy",
    );
  }
  if (!view.isCContiguous)
    throw new InvalidLayoutError(
      `typedArray: the view is not C-contiguous (strides [${view.strides.join(', ')}]); use toTypedArray() for a copy`,
    );
  const kind = typedArrayFor(view.dtype);
  if (kind === undefined)
    throw new UnknownDTypeError(`typedArray: ${view.dtype.name} has no typed array (packed sub-byte type)`);
  if (byteOffset % kind.ctor.BYTES_PER_ELEMENT !== 0) {
    throw new InvalidLayoutError(
      `typedArray: byte offset ${byteOffset} is not aligned to ${kind.ctor.BYTES_PER_ELEMENT} bytes; use toTypedArray() for a copy`,
    );
  }
  return new kind.ctor(buffer, byteOffset, view.size * kind.perElement);
}

/** @internal `StridedMemoryView.toTypedArray`: a compact C-order copy of a host view. */
export function compactCopy(view: StridedMemoryView): AnyTypedArray {
  const { buffer, byteOffset } = view._hostMemory('copy to a typed array');
  const kind = typedArrayFor(view.dtype);
  if (kind === undefined)
    throw new UnknownDTypeError(`toTypedArray: ${view.dtype.name} has no typed array (packed sub-byte type)`);
  const itemsize = view.itemsize;
  checkCopySize(view.size * itemsize, 'toTypedArray');
  const out = new kind.ctor(view.size * kind.perElement);
  copyStrided(
    { buffer: out.buffer, byteOffset: 0, byteStrides: compactStrides(view.shape).map((s) => s * itemsize) },
    { buffer, byteOffset, byteStrides: view.strides.map((s) => s * itemsize) },
    view.shape,
    itemsize,
  );
  return out;
}

/** @internal `StridedMemoryView.copyFrom` (`viewSource` views the source, after this view is checked): element by element, honoring both layouts, safe when they overlap. */
export function copyInto(target: StridedMemoryView, viewSource: () => StridedMemoryView): void {
  const { buffer, byteOffset } = target._hostMemory('copy into this view');
  target.requireWritable('copy into this view');
  const src = viewSource();
  const { buffer: srcBuffer, byteOffset: srcByteOffset } = src._hostMemory('copy from it');
  if (src.dtype !== target.dtype)
    throw new InvalidLayoutError(
      `copyFrom: the source holds ${src.dtype.name}, this view ${target.dtype.name}; no conversion is made`,
    );
  // Extents of 1 carry no order: [1, 3] fills [3], and [1] fills a 0-d view.
  const [dstShape, dstStrides] = squeeze(target.shape, target.strides);
  const [srcShape, srcStrides] = squeeze(src.shape, src.strides);
  if (srcShape.length !== dstShape.length || srcShape.some((e, i) => e !== dstShape[i])) {
    throw new InvalidLayoutError(`copyFrom: shape [${src.shape.join(', ')}] differs from [${target.shape.join(', ')}]`);
  }
  const itemsize = target.itemsize;
  if (!Number.isInteger(itemsize))
    throw new UnknownDTypeError(`copyFrom: ${target.dtype.name} is a packed sub-byte type`);
  let from = { buffer: srcBuffer, byteOffset: srcByteOffset, byteStrides: srcStrides.map((s) => s * itemsize) };
  if (srcBuffer === buffer || target.buffer === undefined || src.buffer === undefined) {
    // The same memory (one buffer, or two buffers over pinned or managed memory that may overlap):
    // go through a compact copy so that overlap cannot corrupt.
    checkCopySize(target.size * itemsize, 'copyFrom');
    const tmp = new ArrayBuffer(Math.max(target.size * itemsize, 0));
    const compact = compactStrides(dstShape).map((s) => s * itemsize);
    copyStrided({ buffer: tmp, byteOffset: 0, byteStrides: compact }, from, dstShape, itemsize);
    from = { buffer: tmp, byteOffset: 0, byteStrides: compact };
  }
  copyStrided({ buffer, byteOffset, byteStrides: dstStrides.map((s) => s * itemsize) }, from, dstShape, itemsize);
}
