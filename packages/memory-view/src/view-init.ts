import { DLPackFlags } from './protocols.js';
import { checkedDevice, CPU_DEVICE, DLDeviceType, deviceTypeName, isHostAccessible, type Device } from './device.js';
import { type DType, dtype as toDType, type DTypeLike } from './dtype.js';
import { ExporterClosedError, InvalidLayoutError, UnsupportedDeviceError } from './errors.js';
import { formatValue } from './format-value.js';
import { bufferByteLength, isArrayBufferLike, isDetached } from './host-buffer.js';
import { checkAddress, checkInBuffer, compactStrides, readShape, readStrides } from './layout.js';
import { Lease } from './lease.js';
import { NO_SYNC, resolveStream, type ConsumerStream } from './stream.js';

/**
 * What `new StridedMemoryView(init)` takes: each field sets the view's
 * property of the same name, and every one is checked (each read once) before
 * the view exists. The memory is either at an address (`ptr`: device, pinned or
 * managed memory, or host memory that JS does not own) or in a JS buffer
 * (`buffer` and `byteOffset`): give exactly one of `ptr` and `buffer`. Nothing
 * is checked against an allocation behind `ptr`: the caller vouches for it.
 */
export interface StridedMemoryViewInit {
  /** Address of element 0 (`[0, 2^64)`); the whole layout must stay in that range. */
  readonly ptr?: bigint | undefined;
  /** The `ArrayBuffer` or `SharedArrayBuffer` that holds the elements; the whole layout must lie in it. */
  readonly buffer?: ArrayBufferLike | undefined;
  /** Bytes from the start of `buffer` to element 0 (default 0; only with `buffer`). */
  readonly byteOffset?: number | undefined;
  /** Extents, outermost first: at most 64 non-negative integers. */
  readonly shape: readonly number[];
  /** Strides in elements, one per dimension, negative allowed (default: compact row-major). */
  readonly strides?: readonly number[] | undefined;
  /** The element type. */
  readonly dtype: DTypeLike;
  /** Where the memory lives (default: CPU for a buffer, CUDA device 0 for an address). A buffer is host memory: CPU, pinned or managed. */
  readonly device?: Device | undefined;
  /** {@link DLPackFlags} bits: read-only, copied, sub-byte padded (default 0). */
  readonly flags?: number | undefined;
  /** The object that owns the memory: kept alive while any view of it lives. */
  readonly exporter?: unknown;
  /** The stream on which the data is ready to use, if any (`-1`: none). */
  readonly stream?: ConsumerStream | undefined;
  /** Called exactly once when the view and every view derived from it are closed or collected. */
  readonly release?: (() => void) | undefined;
}

/**
 * @internal What this package's own factories pass to the constructor: every
 * field already checked, all of them present so that the constructor sees one
 * object shape.
 */
export interface CheckedViewInit {
  readonly ptr: bigint | undefined;
  readonly buffer: ArrayBufferLike | undefined;
  readonly byteOffset: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly dtype: DType;
  /** Undefined until resolved (the CUDA array interface does not say). */
  readonly device: Device | undefined;
  readonly flags: number;
  readonly exporter: unknown;
  readonly stream: bigint | undefined;
  /** The producer's tensor or interface object, held while the view lives. */
  readonly source: unknown;
  /** Shared by a family of views: the producer's deleter and the closed flag. */
  readonly lease: Lease | undefined;
}

/** @internal The second constructor argument of this package's own factories: their init is a {@link CheckedViewInit}. */
export const CHECKED_VIEW_INIT: unique symbol = Symbol('cuda-js.memory-view.checked-view-init');

/** The default device of memory at an address, as DLPack's CUDA device 0. */
const CUDA_DEVICE_0: Device = Object.freeze({ type: DLDeviceType.CUDA, id: 0 });

/** The DLPack flag bits that a view keeps. */
const KNOWN_FLAGS = DLPackFlags.READ_ONLY | DLPackFlags.IS_COPIED | DLPackFlags.IS_SUBBYTE_TYPE_PADDED;

/** @internal Bytes per element as stored under `flags`: whole bytes for padded sub-byte types. */
export function storedItemsize(t: DType, flags: number): number {
  return flags & DLPackFlags.IS_SUBBYTE_TYPE_PADDED ? Math.ceil(t.itemsize) : t.itemsize;
}

/** The device named by an untrusted `{ type, id }`, each read once; `fallback` when none is given. */
function readDevice(given: unknown, fallback: Device, what: string): Device {
  if (given === undefined) return fallback;
  const type: unknown = given === null || typeof given !== 'object' ? undefined : (given as { type?: unknown }).type;
  const id: unknown = given === null || typeof given !== 'object' ? undefined : (given as { id?: unknown }).id;
  const checked = checkedDevice(type, id);
  if (checked === undefined) {
    throw new UnsupportedDeviceError(
      `${what}: device { type: ${formatValue(type)}, id: ${formatValue(id)} } is not a DLPack device (a positive type code and a non-negative integer id)`,
    );
  }
  return checked;
}

function readFlags(given: unknown, what: string): number {
  if (given === undefined) return 0;
  // Compared before any bit operation: `&` would wrap values past 2^31 into valid-looking bits.
  if (
    typeof given !== 'number' ||
    !Number.isInteger(given) ||
    given < 0 ||
    given > KNOWN_FLAGS ||
    (given & ~KNOWN_FLAGS) !== 0
  ) {
    throw new InvalidLayoutError(
      `${what}: flags ${formatValue(given)} are not DLPackFlags bits (READ_ONLY ${DLPackFlags.READ_ONLY}, IS_COPIED ${DLPackFlags.IS_COPIED}, IS_SUBBYTE_TYPE_PADDED ${DLPackFlags.IS_SUBBYTE_TYPE_PADDED})`,
    );
  }
  return given;
}

/**
 * An untrusted {@link StridedMemoryViewInit}, each field read once and
 * checked: a named error ({@link InvalidLayoutError}, {@link OutOfBoundsError},
 * {@link UnknownDTypeError}, {@link UnsupportedDeviceError},
 * {@link ExporterClosedError}) unless every element of the layout lies in its
 * memory. `what` starts each message.
 */
export function checkViewInit(init: StridedMemoryViewInit, what: string): CheckedViewInit {
  if (init === null || typeof init !== 'object')
    throw new TypeError(
      `${what}: the init object { ptr or buffer, shape, dtype, ... } is required, got ${formatValue(init)}`,
    );
  const {
    ptr,
    buffer,
    byteOffset: givenOffset,
    shape: givenShape,
    strides: givenStrides,
    dtype: givenDType,
    device: givenDevice,
    flags: givenFlags,
    exporter,
    stream: givenStream,
    release,
  } = init;
  const t = toDType(givenDType);
  const shape = readShape(givenShape, what);
  const strides =
    givenStrides === undefined ? Object.freeze(compactStrides(shape)) : readStrides(givenStrides, shape, what);
  const flags = readFlags(givenFlags, what);
  const itemsize = storedItemsize(t, flags);
  let device: Device;
  let byteOffset = 0;
  if (buffer !== undefined) {
    if (ptr !== undefined)
      throw new InvalidLayoutError(`${what}: give the memory as ptr (an address) or as buffer (a JS buffer), not both`);
    if (!isArrayBufferLike(buffer))
      throw new InvalidLayoutError(
        `${what}: buffer must be an ArrayBuffer or a SharedArrayBuffer, got ${formatValue(buffer)}`,
      );
    if (isDetached(buffer)) throw new ExporterClosedError(`${what}: the buffer is detached`);
    const offset: unknown = givenOffset ?? 0;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
      throw new InvalidLayoutError(`${what}: byteOffset must be a non-negative integer, got ${formatValue(offset)}`);
    byteOffset = offset;
    checkInBuffer(byteOffset, bufferByteLength(buffer), shape, strides, itemsize, what);
    device = readDevice(givenDevice, CPU_DEVICE, what);
    if (!isHostAccessible(device.type))
      throw new UnsupportedDeviceError(
        `${what}: a JS buffer is host memory, not memory of ${deviceTypeName(device.type)}:${device.id}; give device memory as ptr`,
      );
  } else {
    if (ptr === undefined)
      throw new InvalidLayoutError(
        `${what}: the memory is missing: give ptr (a bigint address) or buffer (an ArrayBuffer or SharedArrayBuffer)`,
      );
    if (givenOffset !== undefined && givenOffset !== 0)
      throw new InvalidLayoutError(
        `${what}: byteOffset ${formatValue(givenOffset)} is for a buffer; add it to ptr instead`,
      );
    checkAddress(ptr, shape, strides, itemsize, what);
    device = readDevice(givenDevice, CUDA_DEVICE_0, what);
  }
  const stream = resolveStream(givenStream);
  if (release !== undefined && typeof release !== 'function')
    throw new TypeError(`${what}: release must be a function`);
  return {
    ptr: buffer === undefined ? ptr : undefined,
    buffer,
    byteOffset,
    shape,
    strides,
    dtype: t,
    device,
    flags,
    exporter,
    stream: stream === NO_SYNC ? undefined : stream,
    source: undefined,
    lease: release === undefined ? undefined : new Lease(release),
  };
}
