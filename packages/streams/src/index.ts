export {
  STREAM_PROTOCOL,
  LEGACY_DEFAULT_STREAM_HANDLE,
  PER_THREAD_DEFAULT_STREAM_HANDLE,
  streamHandle,
  type StreamLike,
  type StreamArgument,
  type StreamProtocolResult,
} from './stream-protocol.js';
export { Stream, type StreamOptions } from './stream.js';
export { Event, type EventOptions } from './event.js';
export type { IpcEventDescriptor } from './ipc-event-descriptor.js';
export { IpcError } from './ipc-error.js';
export { IPC_PAYLOAD_BYTES, encodeIpcPayload, decodeIpcPayload, checkIpcRecord, describeValue } from './ipc-payload.js';
export { ClosedResourceError } from '@cuda-js/bindings';
export { OwnedHandle, type HandleRelease } from '@cuda-js/bindings/runtime';
export { StreamsError, UnknownStreamHandleError } from './errors.js';
export { StreamOptionError } from './stream-option-error.js';
export { orderStreams } from './order-streams.js';
export { deferStreamWork, submitDeferredWork } from './deferred-work.js';
export { launchHostFunction, pendingHostFunctions, checkBlockingWait } from './host-function.js';
export { HostFunctionError, HostFunctionDeadlockError } from './host-function-errors.js';
