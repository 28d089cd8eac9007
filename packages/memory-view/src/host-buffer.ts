/** Whether `value` is an `ArrayBuffer` or a `SharedArrayBuffer` (of this realm). */
export function isArrayBufferLike(value: unknown): value is ArrayBufferLike {
  return value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer);
}

/**
 * Whether a buffer was detached (transferred or closed). Node 20 has no
 * `ArrayBuffer.prototype.detached`; a detached buffer has length 0 and refuses
 * new typed arrays, which a merely empty one does not.
 */
export function isDetached(buffer: ArrayBufferLike): boolean {
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}
