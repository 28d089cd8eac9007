/** Base class of every error this package throws, so that callers can catch them as a group. */
export class MemoryViewError extends Error {
  override readonly name: string = 'MemoryViewError';
}

/** A DLPack type code, bit width or lane count, a typestr or a dtype name that is not known. */
export class UnknownDTypeError extends MemoryViewError {
  override readonly name = 'UnknownDTypeError';
}

/** A shape or strides that cannot describe a view: lengths that differ, negative or non-integer extents, byte strides that are not whole elements, an illegal reshape. */
export class InvalidLayoutError extends MemoryViewError {
  override readonly name = 'InvalidLayoutError';
}

/** A view whose elements would lie outside the buffer that holds them. */
export class OutOfBoundsError extends MemoryViewError {
  override readonly name = 'OutOfBoundsError';
}

/** A DLPack tensor of a major version this package does not read; its deleter has been called. */
export class DLPackVersionError extends MemoryViewError {
  override readonly name = 'DLPackVersionError';
  constructor(
    /** The major version that the producer gave. */
    readonly major: number,
    /** The minor version that the producer gave. */
    readonly minor: number,
    what = 'DLPack tensor',
  ) {
    super(`${what} has DLPack version ${major}.${minor}; only major version 1 is supported (its deleter was called)`);
  }
}

/** An API that writes was given a read-only view. */
export class ReadOnlyViewError extends MemoryViewError {
  override readonly name = 'ReadOnlyViewError';
}

/** The exporting object, or the view itself, was closed, or its buffer was detached. */
export class ExporterClosedError extends MemoryViewError {
  override readonly name = 'ExporterClosedError';
}

/** An object that implements none of the array protocols and is no host array that this package knows. */
export class NotViewableError extends MemoryViewError {
  override readonly name: string = 'NotViewableError';
}

/**
 * A host array (a scijs or stdlib ndarray, an Apache Arrow vector) whose
 * adapter is not loaded: the main entry recognizes it but loads no adapter.
 * Importing {@link AdapterNotImportedError.subpath} once, anywhere in the
 * program, lets `fromAny` view it.
 */
export class AdapterNotImportedError extends NotViewableError {
  override readonly name = 'AdapterNotImportedError';
  constructor(
    /** The module to import: `@cuda-js/memory-view/adapters/<name>`. */
    readonly subpath: string,
    message: string,
  ) {
    super(message);
  }
}

/** A native tensor says host (kDLCPU) memory at an address that is not mapped readable in this process: it is refused, never lent as an ArrayBuffer. */
export class UnreadableHostMemoryError extends MemoryViewError {
  override readonly name = 'UnreadableHostMemoryError';
}

/** A protocol method returned something that does not follow `docs/protocols.md`. */
export class ProtocolError extends MemoryViewError {
  override readonly name = 'ProtocolError';
}

/** A consumer stream handle that is no CUstream: outside [0, 2^64) and not -1 (no synchronization). */
export class InvalidStreamError extends MemoryViewError {
  override readonly name = 'InvalidStreamError';
}

/** Device memory was viewed without a consumer stream: pass `{ stream }`, or `{ stream: -1 }` to opt out of ordering. */
export class StreamRequiredError extends MemoryViewError {
  override readonly name = 'StreamRequiredError';
}

/**
 * Two streams have to be ordered (a CUDA array interface producer's stream and
 * the consumer's) but no stream waiter is registered: this package has no CUDA
 * driver of its own. `@cuda-js/core` registers one; see {@link setStreamWaiter}.
 */
export class StreamOrderError extends MemoryViewError {
  override readonly name = 'StreamOrderError';
}

/** The operation does not apply to memory on this device (a host copy of device memory, a CUDA array interface of host memory, ...). */
export class UnsupportedDeviceError extends MemoryViewError {
  override readonly name = 'UnsupportedDeviceError';
}

/** The producer was asked for something it cannot give: a copy, another device, a DLPack version below 1. */
export class UnsupportedExportError extends MemoryViewError {
  override readonly name = 'UnsupportedExportError';
}

/** The optional native DLPack helper (`@cuda-js/memory-view/native`) is not built or cannot load. */
export class NativeHelperUnavailableError extends MemoryViewError {
  override readonly name = 'NativeHelperUnavailableError';
}
