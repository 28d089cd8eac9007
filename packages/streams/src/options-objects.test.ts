// Options objects of @cuda-js/streams that are no plain objects, or answer twice (hostile input):
// a class instance's, a Map's or an inherited setting is no own key, so it was read unchecked or
// not at all; a getter could answer the check with one value and the use with another.
// Stream.create and Event.create check their options before the driver is called.
import { answersTwice, countingProxy, nonPlainOptions } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { Event, Stream, StreamOptionError } from './index.js';

describe('options that are no plain object', () => {
  it.each(nonPlainOptions({ timing: true }))('%s is a StreamOptionError at every entry point', (_what, make) => {
    expect(() => Stream.create(make() as never)).toThrow(StreamOptionError);
    expect(() => Stream.create(make() as never)).toThrow('Stream.create: the options must be a plain object');
    expect(() => Event.create(make() as never)).toThrow(StreamOptionError);
    expect(() => Event.fromHandle(1n, make() as never)).toThrow(StreamOptionError);
  });
});

describe('options whose getters answer twice are read once: the value checked is the value used', () => {
  it('Event.fromHandle', () => {
    const { options, reads } = answersTwice('timing', true, 'banana');
    expect(Event.fromHandle(1n, options as never).timing).toBe(true);
    expect(reads()).toBe(1);
  });
});

describe("a Proxy's get trap runs once per key", () => {
  it('Event.fromHandle', () => {
    const { proxy, gets } = countingProxy({ timing: false });
    expect(Event.fromHandle(1n, proxy as never).timing).toBe(false);
    expect(Object.fromEntries(gets)).toEqual({ timing: 1 });
  });
});
