import { describe, expect, it } from 'vitest';
import { LEGACY_DEFAULT_STREAM_HANDLE, Stream, STREAM_PROTOCOL, streamHandle } from './index.js';

describe('the stream protocol', () => {
  it('is the registry symbol cuda.stream', () => {
    expect(STREAM_PROTOCOL).toBe(Symbol.for('cuda.stream'));
  });

  it('reads a handle from a bigint or from any object that implements it', () => {
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
