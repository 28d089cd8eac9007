// Work held back from a stream (a launch batch) is submitted before any read
// of that stream's handle by cuda-js: a Stream's handle, its protocol answer,
// streamHandle of a bigint or a foreign protocol object. No device needed.
import { describe, expect, it, vi } from 'vitest';
import { deferStreamWork, Stream, streamHandle, STREAM_PROTOCOL } from './index.js';

describe('deferStreamWork', () => {
  it("submits before each read of the stream's handle, until the deferral ends", () => {
    const stream = Stream.from(0x5150n);
    const other = Stream.from(0x5151n);
    const submit = vi.fn();
    const end = deferStreamWork(0x5150n, submit);
    expect(submit).not.toHaveBeenCalled();
    expect(stream.handle).toBe(0x5150n);
    expect(submit).toHaveBeenCalledTimes(1);
    stream[STREAM_PROTOCOL]();
    streamHandle(0x5150n);
    streamHandle({ [STREAM_PROTOCOL]: () => ({ version: 0, handle: 0x5150n }) });
    expect(submit).toHaveBeenCalledTimes(4);
    expect(other.handle).toBe(0x5151n); // another stream's reads submit nothing
    streamHandle(other);
    expect(submit).toHaveBeenCalledTimes(4);
    end();
    expect(stream.handle).toBe(0x5150n);
    expect(submit).toHaveBeenCalledTimes(4);
  });

  it('holds back one batch per stream at a time; streams apart are independent', () => {
    const a = vi.fn();
    const b = vi.fn();
    const endA = deferStreamWork(0x5160n, a);
    expect(() => deferStreamWork(0x5160n, vi.fn())).toThrow(/stream 0x5160 already holds back work/);
    const endB = deferStreamWork(0x5161n, b);
    Stream.from(0x5161n).handle;
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([0, 1]);
    endA();
    endA(); // twice: nothing more
    endB();
    const again = vi.fn();
    const endAgain = deferStreamWork(0x5160n, again);
    Stream.from(0x5160n).handle;
    expect(again).toHaveBeenCalledTimes(1);
    endAgain();
  });
});
