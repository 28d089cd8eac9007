import { describe, expect, it } from 'vitest';
import {
  LEGACY_DEFAULT_STREAM_HANDLE,
  Stream,
  STREAM_PROTOCOL,
  streamHandle,
  UnknownStreamHandleError,
} from './index.js';

describe('the stream protocol', () => {
  it('is the registry symbol cuda.stream', () => {
    expect(STREAM_PROTOCOL).toBe(Symbol.for('cuda.stream'));
  });

  it('reads a handle from a bigint or from any object that implements it', () => {
    Stream.from(7n); // a raw handle is taken once wrapped
    expect(streamHandle(7n)).toBe(7n);
    const foreign = { [Symbol.for('cuda.stream')]: () => ({ version: 0, handle: 0x1234n }) };
    expect(streamHandle(foreign as never)).toBe(0x1234n);
    expect(Stream.from(foreign as never).handle).toBe(0x1234n);
    expect(Stream.from(foreign as never).isWrapped).toBe(true);
  });

  it('refuses what is not a stream, and malformed answers, by name', () => {
    expect(() => streamHandle(3 as never, 'launch: stream')).toThrow(
      /^launch: stream must be a Stream, an object implementing Symbol.for\('cuda.stream'\), or a bigint CUstream handle; got number 3$/,
    );
    expect(() => streamHandle({} as never)).toThrow(TypeError);
    const bad = { [Symbol.for('cuda.stream')]: () => ({ version: 1, handle: 1n }) };
    expect(() => streamHandle(bad as never)).toThrow(/must return \{ version: 0, handle: bigint \}/);
    const numeric = { [Symbol.for('cuda.stream')]: () => ({ version: 0, handle: 1 }) };
    expect(() => streamHandle(numeric as never)).toThrow(TypeError);
  });

  // Issue 20: Graph.launch(5n), a made-up handle, ended the process; the driver cannot check a CUstream.
  it('takes a bigint only for the default streams and streams cuda-js made or wrapped', () => {
    expect(() => streamHandle(5n, 'Graph.launch: stream')).toThrow(UnknownStreamHandleError);
    expect(() => streamHandle(0xdeadn)).toThrow(
      /0xdead is no stream that cuda-js made or wrapped; pass a Stream, wrap a stream owned elsewhere once with Stream.from\(handle\)/,
    );
    for (const handle of [0n, 1n, 2n]) expect(streamHandle(handle)).toBe(handle);
    Stream.from(0xdeadn);
    expect(streamHandle(0xdeadn)).toBe(0xdeadn);
    // an object implementing the protocol is foreign interop: its handle is taken as it says
    expect(streamHandle({ [Symbol.for('cuda.stream')]: () => ({ version: 0, handle: 0xbeefn }) } as never)).toBe(
      0xbeefn,
    );
  });

  it('has the legacy and per-thread default streams as constants, which close() leaves alone', () => {
    expect(Stream.legacyDefault.handle).toBe(LEGACY_DEFAULT_STREAM_HANDLE);
    expect(Stream.perThreadDefault.handle).toBe(2n);
    expect(Stream.legacyDefault[STREAM_PROTOCOL]()).toEqual({ version: 0, handle: 1n });
  });

  it('never closes a wrapped stream it does not own, and fails clearly after close', () => {
    const wrapped = Stream.from(99n);
    wrapped.close();
    wrapped.close();
    expect(wrapped.closed).toBe(true);
    expect(() => wrapped.handle).toThrow('Stream (wrapped) is closed');
  });
});
