import { describe, expect, it } from 'vitest';
import { CUDA_STREAM, readStreamHandle } from './index.js';

describe('readStreamHandle', () => {
  it('reads a bigint as is, and a protocol object through its method, called once', () => {
    expect(readStreamHandle(0n)).toBe(0n);
    expect(readStreamHandle(0x1234n)).toBe(0x1234n);
    let calls = 0;
    const stream = {
      [CUDA_STREAM]: () => {
        calls++;
        return { version: 0 as const, handle: 0xfeedn };
      },
    };
    expect(readStreamHandle(stream)).toBe(0xfeedn);
    expect(calls).toBe(1);
  });

  it('gives a fault, never a handle, for what names no stream', () => {
    for (const value of [undefined, null, -1, 3, 'stream', {}, []])
      expect(readStreamHandle(value)).toEqual({ fault: 'not-a-stream' });
    for (const answer of [null, 7n, { version: 1, handle: 1n }, { version: 0, handle: 1 }, { handle: 1n }]) {
      expect(readStreamHandle({ [CUDA_STREAM]: () => answer })).toEqual({ fault: 'bad-answer', answer });
    }
  });
});
