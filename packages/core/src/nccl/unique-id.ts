import { Buffer as NodeBuffer } from 'node:buffer';
import { formatValue } from '@cuda-js/memory-view';
import { CollectiveArgumentError } from '../errors.js';

/** The bytes of an `ncclUniqueId` (NCCL_UNIQUE_ID_BYTES). */
export const UNIQUE_ID_BYTES = 128;
// 128 bytes in base64: 42 groups of four characters and a last group of three and one '=' of padding
const BASE64_ID = /^[A-Za-z0-9+/]{171}=$/;

/** An `ncclUniqueId`'s 128 bytes as base64: what one rank sends the others. */
export function encodeUniqueId(bytes: Uint8Array): string {
  return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The 128 bytes of a unique id given as base64 text (from {@link encodeUniqueId}) or as bytes; checked strictly. */
export function decodeUniqueId(id: unknown, what: string): Uint8Array {
  if (typeof id === 'string') {
    const bytes = BASE64_ID.test(id) ? new Uint8Array(NodeBuffer.from(id, 'base64')) : undefined;
    // canonical text only: a last character with stray low bits would name the same bytes as another id
    if (bytes === undefined || encodeUniqueId(bytes) !== id) {
      throw new CollectiveArgumentError(
        `${what}: a unique id is ${UNIQUE_ID_BYTES} bytes in base64 (172 characters, as Communicator.uniqueId() gives it), got ${formatValue(id)}`,
      );
    }
    return bytes;
  }
  if (id instanceof Uint8Array) {
    if (id.byteLength !== UNIQUE_ID_BYTES)
      throw new CollectiveArgumentError(`${what}: a unique id is ${UNIQUE_ID_BYTES} bytes, got ${id.byteLength}`);
    return new Uint8Array(id);
  }
  throw new CollectiveArgumentError(
    `${what}: a unique id is a base64 string or a Uint8Array of ${UNIQUE_ID_BYTES} bytes, got ${formatValue(id)}`,
  );
}
