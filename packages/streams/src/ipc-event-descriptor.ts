import { driver, type CUevent } from '@cuda-js/bindings';
import { checkIpcRecord, decodeIpcPayload, encodeIpcPayload } from './ipc-payload.js';

/**
 * An interprocess event, as another process opens it
 * (`Event.fromIpcDescriptor`): the 64 bytes of `cuIpcGetEventHandle` as
 * base64. A plain object that JSON, `process.send` and `postMessage` carry.
 */
export interface IpcEventDescriptor {
  /** The CUipcEventHandle's 64 bytes, base64. */
  readonly data: string;
}

/** The descriptor of an interprocess event (cuIpcGetEventHandle). */
export function exportIpcEvent(event: CUevent): IpcEventDescriptor {
  return { data: encodeIpcPayload(driver.cuIpcGetEventHandle(event).reserved, 'Event.ipcDescriptor') };
}

/** The handle bytes of a descriptor, checked strictly (an IpcError before any driver call). */
export function ipcEventHandleBytes(descriptor: unknown): Uint8Array {
  const what = 'Event.fromIpcDescriptor: the descriptor';
  const fields = checkIpcRecord(descriptor, what, ['data']);
  return decodeIpcPayload(fields['data'], `${what}'s data`);
}
