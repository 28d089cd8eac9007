import { describe, expect, it } from 'vitest';
import { NotViewableError, StridedMemoryView, viewable, type ViewableArgument } from './index.js';
import { DeviceArray } from '../test/exporters.js';

describe('viewable(fn, argIndices)', () => {
  it('hands the listed arguments to fn as ViewableArguments, the others untouched', () => {
    const seen: unknown[] = [];
    const sum = viewable(
      function (this: unknown, x: ViewableArgument, factor: number, y: ViewableArgument) {
        seen.push(this, x.object, factor, y.object);
        const xs = x.view().toTypedArray() as Float32Array;
        const ys = y.view(-1).toTypedArray() as Float32Array;
        return xs.reduce((acc, v, i) => acc + factor * v + ys[i]!, 0);
      },
      [0, 2],
    );
    expect(sum.name).toBe('');
    const a = new Float32Array([1, 2]);
    const b = new Float32Array([10, 20]);
    expect(sum.call('self', a, 2, b)).toBe(36);
    expect(seen).toEqual(['self', a, 2, b]);
  });

  it('passes the consumer stream of view(stream) to the producer', () => {
    const producer = new DeviceArray(0x1000n, [8]);
    const f = viewable((x: ViewableArgument, stream: bigint) => x.view(stream), [0]);
    const v = f(producer, 0x77n);
    expect(v).toBeInstanceOf(StridedMemoryView);
    expect(producer.requests[0]?.stream).toBe(0x77n);
  });

  it('refuses an argument that cannot be viewed when the function is called', () => {
    const named = function scale(x: ViewableArgument) {
      return x;
    };
    const f = viewable(named, [0]);
    expect(f.name).toBe('scale');
    expect(() => f({ not: 'an array' })).toThrow(NotViewableError);
    expect(() => viewable(named, [-1])).toThrow(RangeError);
  });
});
