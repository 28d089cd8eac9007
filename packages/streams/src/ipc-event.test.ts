// Interprocess event descriptors without a GPU: a descriptor that cannot be an
// event's is an IpcError before cuIpcOpenEventHandle is looked up, and the
// 64-byte payload codec takes only what it gives. (Opening one across two
// processes is core's ipc.gpu.test.ts; fast-check over hostile descriptors is
// core's ipc-hostile.test.ts.)
import { Buffer as NodeBuffer } from 'node:buffer';
import { CudaError, LibraryNotFoundError } from '@cuda-js/bindings';
import { describe, expect, it } from 'vitest';
import { checkIpcRecord, decodeIpcPayload, encodeIpcPayload, Event, IPC_PAYLOAD_BYTES, IpcError } from './index.js';

const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 251) & 255);
const data = NodeBuffer.from(bytes).toString('base64');

function openError(descriptor: unknown): unknown {
  try {
    Event.fromIpcDescriptor(descriptor as never).close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('Event.fromIpcDescriptor', () => {
  it('refuses what is not a descriptor of 64 bytes with an IpcError naming the problem', () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /the descriptor must be a plain object, got undefined/],
      [data, /must be a plain object, got a string of 88 characters/],
      [{}, /the descriptor lacks the field 'data'/],
      [{ data, size: 64 }, /has an unknown field 'size' \(known: data\)/],
      [{ data: data.slice(0, 86) }, /the descriptor's data must be the canonical base64 of 64 bytes/],
      [{ data: NodeBuffer.from(new Uint8Array(48)).toString('base64') }, /canonical base64 of 64 bytes/],
      [{ data: [...bytes] }, /data must be a string of base64 \(64 bytes\), got an array of 64/],
    ];
    for (const [descriptor, message] of cases) {
      const error = openError(descriptor);
      expect(error, String(error)).toBeInstanceOf(IpcError);
      expect((error as Error).message).toMatch(/^Event\.fromIpcDescriptor: /);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('gives a well-formed descriptor to the driver, whose own error comes through (no device here)', () => {
    const error = openError(JSON.parse(JSON.stringify({ data })));
    // with a GPU and no current context, or without one, the driver answers; made-up bytes never open an event
    expect(
      [CudaError, LibraryNotFoundError].some((kind) => error instanceof kind),
      String(error),
    ).toBe(true);
  });
});

describe('the IPC payload codec', () => {
  it('round-trips 64 bytes and refuses any other length from the driver', () => {
    expect(IPC_PAYLOAD_BYTES).toBe(64);
    expect(encodeIpcPayload(bytes, 'test')).toBe(data);
    expect(encodeIpcPayload([...bytes], 'test')).toBe(data);
    expect([...decodeIpcPayload(data, 'test')]).toEqual([...bytes]);
    expect(() => encodeIpcPayload(bytes.subarray(1), 'Event.ipcDescriptor')).toThrow(
      'Event.ipcDescriptor: the driver gave 63 bytes, not 64',
    );
    expect(() => encodeIpcPayload(undefined, 'x')).toThrow(IpcError);
  });

  it('checks records: plain objects, known fields, data properties only', () => {
    expect(checkIpcRecord({ a: 1, b: undefined }, 'r', ['a'], ['b'])).toEqual({ a: 1, b: undefined });
    expect(checkIpcRecord(Object.assign(Object.create(null), { a: 1 }), 'r', ['a'])).toEqual({ a: 1 });
    expect(() => checkIpcRecord({ a: undefined }, 'r', ['a'])).toThrow("r lacks the field 'a'");
    expect(() => checkIpcRecord(new (class Descriptor {})(), 'r', [])).toThrow(/got an instance of Descriptor/);
    expect(() =>
      checkIpcRecord(
        {
          get a() {
            return 1;
          },
        },
        'r',
        ['a'],
      ),
    ).toThrow(/field 'a' must be a data property/);
  });
});
