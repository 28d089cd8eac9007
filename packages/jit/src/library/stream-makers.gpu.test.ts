// The stream program of the simulator's tests, unchanged, on the GPU: two
// streams, stream-ordered copies and launches, an event ordering one
// stream after the other, timing events; against the plain-JS reference.
import { Device } from '@cuda-js/core';
import { Event, Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { defaultStream, event, stream } from './stream-makers.js';
import { chunkedProgram, chunkedReference } from './stream-program.test-support.js';

describeGpu('streams and events of the stream makers on the GPU', () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
  });

  it('the makers give GPU Streams and Events; the default stream is the legacy one', () => {
    using s = stream();
    using e = event();
    expect(s).toBeInstanceOf(Stream);
    expect(e).toBeInstanceOf(Event);
    expect(e.timing).toBe(true);
    expect(defaultStream()).toBe(Stream.legacyDefault);
  });

  it('the simulator-tested stream program gives the same result on the GPU, with a positive elapsed time', async () => {
    const { result, ms } = await chunkedProgram();
    expect(Array.from(result)).toEqual(chunkedReference());
    expect(ms).toBeGreaterThan(0);
  });
});
