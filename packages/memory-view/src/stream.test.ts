import { afterEach, describe, expect, it } from 'vitest';
import {
  CUDA_STREAM,
  driverHooks,
  InvalidStreamError,
  ProtocolError,
  resolveStream,
  setDriverHooks,
  setStreamWaiter,
} from './index.js';

afterEach(() => setDriverHooks({}));

describe('the stream argument', () => {
  it('takes a handle, -1, undefined, or an object with the stream protocol', () => {
    expect(resolveStream(0x1234n)).toBe(0x1234n);
    expect(resolveStream(0n)).toBe(1n); // the default stream: DLPack's "legacy default" value
    expect(resolveStream(-1)).toBe(-1n);
    expect(resolveStream(-1n as bigint)).toBe(-1n);
    expect(resolveStream(undefined)).toBeUndefined();
    expect(resolveStream({ [CUDA_STREAM]: () => ({ version: 0, handle: 0xfeedn }) })).toBe(0xfeedn);
    expect(resolveStream({ [CUDA_STREAM]: () => ({ version: 0, handle: 0n }) })).toBe(1n);
  });

  it('refuses anything else with a clear error', () => {
    expect(() => resolveStream(5 as never)).toThrow(TypeError);
    expect(() => resolveStream({} as never)).toThrow(TypeError);
    expect(() => resolveStream({ [CUDA_STREAM]: () => ({ version: 1, handle: 1n }) } as never)).toThrow(
      /version 1 is not supported/,
    );
    expect(() => resolveStream({ [CUDA_STREAM]: () => ({ version: 0, handle: 1 }) } as never)).toThrow(ProtocolError);
  });

  // Issue 20: 2^64 and -5n were taken as consumer streams.
  it('refuses a handle outside [0, 2^64) other than -1', () => {
    for (const bad of [1n << 64n, -5n, -2n, (1n << 70n) + 3n]) {
      expect(() => resolveStream(bad)).toThrow(InvalidStreamError);
      expect(() => resolveStream({ [CUDA_STREAM]: () => ({ version: 0, handle: bad }) })).toThrow(
        /must be a CUstream handle in \[0, 2\^64\)/,
      );
    }
    expect(resolveStream((1n << 64n) - 1n)).toBe((1n << 64n) - 1n);
  });

  it('installs and restores driver hooks', () => {
    const wait = () => {};
    setStreamWaiter(wait);
    expect(driverHooks().waitStream).toBe(wait);
    const previous = setDriverHooks({});
    expect(previous.waitStream).toBe(wait);
    expect(driverHooks().waitStream).toBeUndefined();
  });
});
