/**
 * Host memory measured through the engine's own accessors: the getters of
 * `ArrayBuffer.prototype`, `SharedArrayBuffer.prototype`, `%TypedArray%.prototype`
 * and `DataView.prototype`, called on the object. Own properties that a caller
 * adds (`length`, `byteOffset`, `buffer`, ...) or a fake prototype cannot change
 * what these read; an object that is not what it claims makes them throw.
 */

type Getter = (this: unknown) => unknown;

function getter(proto: object, name: string): Getter {
  const get = Object.getOwnPropertyDescriptor(proto, name)?.get;
  if (get === undefined) throw new Error(`internal: no intrinsic getter ${name}`);
  return get as Getter;
}

const TYPED_ARRAY_PROTO = Object.getPrototypeOf(Uint8Array.prototype) as object;
const taBuffer = getter(TYPED_ARRAY_PROTO, 'buffer');
const taByteOffset = getter(TYPED_ARRAY_PROTO, 'byteOffset');
const taByteLength = getter(TYPED_ARRAY_PROTO, 'byteLength');
const taLength = getter(TYPED_ARRAY_PROTO, 'length');
const taTag = getter(TYPED_ARRAY_PROTO, Symbol.toStringTag as unknown as string);
const dvBuffer = getter(DataView.prototype, 'buffer');
const dvByteOffset = getter(DataView.prototype, 'byteOffset');
const dvByteLength = getter(DataView.prototype, 'byteLength');
const abByteLength = getter(ArrayBuffer.prototype, 'byteLength');
const abResizable = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable')?.get as Getter | undefined;
const sabByteLength =
  typeof SharedArrayBuffer === 'undefined' ? undefined : getter(SharedArrayBuffer.prototype, 'byteLength');

/** A typed array or DataView as the engine sees it. */
export interface MeasuredView {
  /** The intrinsic element type name (`Float32Array`, `Uint8Array` for a Node Buffer), or `DataView`. */
  readonly kind: string;
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly byteLength: number;
  /** Elements (bytes for a DataView). */
  readonly length: number;
}

/** Whether `value` is an `ArrayBuffer`, by the engine's brand check (any realm). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  if (value === null || typeof value !== 'object') return false;
  try {
    abByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a `SharedArrayBuffer`, by the engine's brand check. */
export function isSharedArrayBuffer(value: unknown): value is SharedArrayBuffer {
  if (sabByteLength === undefined || value === null || typeof value !== 'object') return false;
  try {
    sabByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is an `ArrayBuffer` or a `SharedArrayBuffer` (of any realm), by the engine's brand checks. */
export function isArrayBufferLike(value: unknown): value is ArrayBufferLike {
  return isArrayBuffer(value) || isSharedArrayBuffer(value);
}

/** The byte length of a buffer that {@link isArrayBufferLike} accepted, through the intrinsic getter. */
export function bufferByteLength(buffer: ArrayBufferLike): number {
  try {
    return abByteLength.call(buffer) as number;
  } catch {
    return sabByteLength!.call(buffer) as number;
  }
}

/** Whether a buffer can shrink (a resizable `ArrayBuffer`). */
export function isResizable(buffer: ArrayBufferLike): boolean {
  if (abResizable === undefined) return false;
  try {
    return abResizable.call(buffer) === true;
  } catch {
    return false; // a SharedArrayBuffer: it can only grow
  }
}

/** A typed array or a DataView measured through the intrinsic getters; undefined for anything else. */
export function measureView(value: unknown): MeasuredView | undefined {
  if (!ArrayBuffer.isView(value)) return undefined;
  const kind = taTag.call(value);
  if (typeof kind === 'string') {
    return {
      kind,
      buffer: taBuffer.call(value) as ArrayBufferLike,
      byteOffset: taByteOffset.call(value) as number,
      byteLength: taByteLength.call(value) as number,
      length: taLength.call(value) as number,
    };
  }
  const buffer = dvBuffer.call(value) as ArrayBufferLike;
  try {
    const byteLength = dvByteLength.call(value) as number;
    return { kind: 'DataView', buffer, byteOffset: dvByteOffset.call(value) as number, byteLength, length: byteLength };
  } catch {
    // A DataView of a detached (or shrunk) buffer throws from its getters: it holds nothing.
    return { kind: 'DataView', buffer, byteOffset: 0, byteLength: 0, length: 0 };
  }
}

/**
 * Whether a buffer was detached (transferred or closed). Node 20 has no
 * `ArrayBuffer.prototype.detached`; a detached buffer has length 0 and refuses
 * new typed arrays, which a merely empty one does not.
 */
export function isDetached(buffer: ArrayBufferLike): boolean {
  if (bufferByteLength(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}
