import * as bindings from '@cuda-js/bindings';
import * as runtime from '@cuda-js/bindings/runtime';
import { describe, expect, it } from 'vitest';
import {
  ClosedResourceError,
  Event,
  HostFunctionDeadlockError,
  HostFunctionError,
  IpcError,
  OwnedHandle,
  StreamsError,
} from './index.js';

describe('the errors of @cuda-js/streams', () => {
  it('derive from StreamsError, and keep their own names', () => {
    for (const error of [
      new IpcError('m'),
      new HostFunctionError(0x10n, new Error('inner')),
      new HostFunctionDeadlockError('m'),
    ]) {
      expect(error).toBeInstanceOf(StreamsError);
      expect(error.name).not.toBe('StreamsError');
    }
  });

  it('a malformed IPC descriptor is refused with an IpcError, a StreamsError, before any driver call', () => {
    expect(() => Event.fromIpcDescriptor({ kind: 'cuda-event' } as never)).toThrow(IpcError);
    expect(() => Event.fromIpcDescriptor({ kind: 'cuda-event' } as never)).toThrow(StreamsError);
  });

  it('re-exports the bindings’ ClosedResourceError and OwnedHandle (one class each for the whole stack)', () => {
    expect(ClosedResourceError).toBe(bindings.ClosedResourceError);
    expect(OwnedHandle).toBe(runtime.OwnedHandle);
    const wrapped = Event.fromHandle(0x1234n);
    wrapped.close();
    expect(() => wrapped.handle).toThrow(new ClosedResourceError('Event'));
  });
});
