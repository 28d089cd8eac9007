import { Buffer as NodeBuffer } from 'node:buffer';
import { driver } from '@cuda-js/bindings';
import { IpcError } from './ipc-error.js';

/** The bytes of the driver's IPC handles and export data (`CU_IPC_HANDLE_SIZE`: CUipcEventHandle, CUmemPoolPtrExportData). */
export const IPC_PAYLOAD_BYTES = driver.constants.CU_IPC_HANDLE_SIZE;

// 64 bytes are 88 base64 characters: 21 groups of 3 bytes and one last byte, padded with '=='.
const BASE64_OF_64_BYTES = /^[A-Za-z0-9+/]{86}==$/;

/**
 * The driver's 64 bytes as base64 text, for a descriptor that JSON, `process.send`
 * and `postMessage` carry unchanged.
 * @internal
 */
export function encodeIpcPayload(bytes: Uint8Array | readonly number[] | undefined, what: string): string {
  if (bytes === undefined || bytes.length !== IPC_PAYLOAD_BYTES)
    throw new IpcError(`${what}: the driver gave ${bytes?.length ?? 0} bytes, not ${IPC_PAYLOAD_BYTES}`);
  return NodeBuffer.from(bytes).toString('base64');
}

/**
 * The 64 bytes of a descriptor's base64 text, checked strictly: a string of
 * canonical base64 (no white space, the padding it needs, no other spelling of
 * the same bytes) that decodes to exactly 64 bytes; otherwise an IpcError.
 * @internal
 */
export function decodeIpcPayload(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string')
    throw new IpcError(`${what} must be a string of base64 (${IPC_PAYLOAD_BYTES} bytes), got ${describeValue(value)}`);
  const bytes = BASE64_OF_64_BYTES.test(value) ? NodeBuffer.from(value, 'base64') : undefined;
  if (bytes === undefined || bytes.length !== IPC_PAYLOAD_BYTES || bytes.toString('base64') !== value) {
    throw new IpcError(
      `${what} must be the canonical base64 of ${IPC_PAYLOAD_BYTES} bytes (88 characters ending in '=='), got ${describeValue(value)}`,
    );
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The fields of a descriptor, checked strictly: a plain object (as JSON or a
 * structured clone makes it) whose own data properties are the `required`
 * ones and, where given, the `optional` ones, and no others; otherwise an
 * IpcError naming what is wrong. Accessors are refused, so reading the fields
 * runs no code of the sender.
 * @internal
 */
export function checkIpcRecord(
  value: unknown,
  what: string,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new IpcError(`${what} must be a plain object, got ${describeValue(value)}`);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null)
    throw new IpcError(
      `${what} must be a plain object (as JSON or a structured clone makes it), got an instance of ${String(prototype?.constructor?.name)}`,
    );
  const fields: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(value)) {
    const name = typeof key === 'string' ? key : key.toString();
    if (typeof key !== 'string' || (!required.includes(key) && !optional.includes(key))) {
      throw new IpcError(`${what} has an unknown field '${name}' (known: ${[...required, ...optional].join(', ')})`);
    }
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    if (!('value' in descriptor))
      throw new IpcError(`${what}: field '${key}' must be a data property, not an accessor`);
    fields[key] = descriptor.value;
  }
  for (const key of required) if (fields[key] === undefined) throw new IpcError(`${what} lacks the field '${key}'`);
  return fields;
}

/**
 * A short, safe description of a value for a message (never its whole text).
 * @internal
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 24 ? `a string of ${value.length} characters` : `the string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value === 'object' ? 'an object' : String(typeof value);
}
