// Streams and events in the simulator: a program written for the GPU with
// streams, stream-ordered copies and timing events runs unchanged there,
// with sequential semantics (each call is done when it returns).
import { ClosedResourceError, HostFunctionError, STREAM_PROTOCOL } from '@cuda-js/streams';
import { afterEach, describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { JitOptionError } from '../errors.js';
import { jit } from '../jit.js';
import { pinnedArray, toDevice } from './device-arrays.js';
import { reduce } from './reduce.js';
import { SimulatorEvent } from './simulator-event.js';
import { SimulatorStream } from './simulator-stream.js';
import { defaultStream, event, eventElapsedTime, stream } from './stream-makers.js';
import { chunkedProgram, chunkedReference } from './stream-program.test-support.js';
import { vectorize } from './vectorize.js';

describe('streams and events in the simulator', () => {
  const saved = process.env['CUDA_JS_SIMULATOR'];
  afterEach(() => {
    if (saved === undefined) delete process.env['CUDA_JS_SIMULATOR'];
    else process.env['CUDA_JS_SIMULATOR'] = saved;
  });

  it('a GPU program with streams, stream-ordered copies, launches and timing events runs unchanged under CUDA_JS_SIMULATOR=1', async () => {
    process.env['CUDA_JS_SIMULATOR'] = '1';
    expect(stream()).toBeInstanceOf(SimulatorStream);
    expect(event()).toBeInstanceOf(SimulatorEvent);
    const { result, ms } = await chunkedProgram();
    expect(Array.from(result)).toEqual(chunkedReference());
    expect(ms).toBeGreaterThanOrEqual(0);
  });

  it('events: recorded in program order, timing by default, elapsed time between two recorded timing events only', async () => {
    const target = 'simulator';
    const s = stream({ target });
    const a = s.record();
    const b = event({ target }).record(s);
    expect(a.timing).toBe(true);
    expect(a.isDone).toBe(true);
    await expect(b.completed()).resolves.toBeUndefined();
    const first = eventElapsedTime(a, b);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(b.elapsedTimeSince(a)).toBe(first);
    expect(() => eventElapsedTime(a, event({ target }))).toThrow(/the end event has not been recorded/);
    const untimed = event({ target, timing: false }).record(s);
    expect(() => eventElapsedTime(a, untimed)).toThrow(/both events must be created with \{ timing: true \}/);
    expect(() => eventElapsedTime(a, { elapsedTimeSince: () => 0 } as never)).toThrow(
      /both events must be of one target/,
    );
  });

  it('a stream: synchronize, synchronized, isDone and wait are satisfied at once; host functions run in order and their errors are HostFunctionErrors', async () => {
    const target = 'simulator';
    const s = stream({ target });
    const order: string[] = [];
    const done = s.launchHostFunction(() => {
      order.push('host');
      return 7;
    });
    order.push('after');
    await expect(done).resolves.toBe(7);
    expect(order).toEqual(['host', 'after']);
    const failed = s.launchHostFunction(() => {
      throw new Error('boom');
    });
    await expect(failed).rejects.toBeInstanceOf(HostFunctionError);
    await expect(failed).rejects.toMatchObject({ cause: { message: 'boom' } });
    s.synchronize();
    await s.synchronized();
    s.wait(stream({ target }));
    s.wait(s.record());
    expect(s.isDone).toBe(true);
    // its protocol answers the default stream, so that stream-taking APIs take it
    expect(s[STREAM_PROTOCOL]()).toEqual({ version: 0, handle: 0n });
    const twice = vectorize(['float32(float32)'], (x: number) => 2 * x, { target });
    expect(Array.from(twice(Float32Array.from([1, 2]), { stream: s }) as Float32Array)).toEqual([2, 4]);
    expect(reduce((a: number, b: number) => a + b, { target })(Float64Array.from([1, 2, 3]), { stream: s })).toBe(6);
    // a stream-ordered copy into a pinned array: readable once the stream is synchronized (at once here)
    const pinned = pinnedArray(3, 'float64', { target });
    toDevice([4, 5, 6], { target, stream: s }).copyToHost(pinned, { stream: s });
    s.synchronize();
    expect(Array.from(pinned.typedArray() as Float64Array)).toEqual([4, 5, 6]);
  });

  it('a closed stream or event is refused by launches, forall, array makers and records; the default stream stays open', () => {
    const target = 'simulator';
    const k = jit(
      (x: Float32Array) => {
        x[cuda.grid(1)] = 1;
      },
      { target },
    );
    const s = stream({ target });
    s.close();
    s.close(); // twice is safe
    expect(s.closed).toBe(true);
    expect(() => k.launch({ grid: 1, block: 1, stream: s }, new Float32Array(1))).toThrow(ClosedResourceError);
    expect(() => k.forall(1, { stream: s })(new Float32Array(1))).toThrow(/SimulatorStream \(.*forall\) is closed/);
    expect(() => toDevice([1], { target, stream: s })).toThrow(ClosedResourceError);
    expect(() => event({ target }).record(s)).toThrow(ClosedResourceError);
    expect(() => s.synchronize()).toThrow(ClosedResourceError);
    const e = event({ target });
    e.close();
    expect(() => e.record()).toThrow(/SimulatorEvent \(record\) is closed/);
    expect(() => stream({ target }).wait(e)).toThrow(ClosedResourceError);
    const d = defaultStream({ target });
    d.close();
    expect(d.closed).toBe(false);
    expect(defaultStream({ target })).toBe(d);
    k.launch({ grid: 1, block: 1, stream: d }, new Float32Array(1));
  });

  it('refuses unknown options of the makers, naming the nearest', () => {
    expect(() => stream({ target: 'simulator', nonblocking: true } as never)).toThrow(JitOptionError);
    expect(() => stream({ target: 'simulator', nonblocking: true } as never)).toThrow(/nonBlocking/);
    expect(() => event({ target: 'simulator', timming: true } as never)).toThrow(/timing/);
    expect(() => event({ target: 'cpu' } as never)).toThrow(JitOptionError);
  });
});
