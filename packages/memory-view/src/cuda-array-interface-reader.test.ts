// CudaArrayInterfaceReader: reading answers one after another (as a launch reads
// one argument position) gives what a fresh reading of each gives, the same
// named error for a bad one, and the same layout object while nothing changed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CudaArrayInterfaceReader,
  type CudaArrayInterfaceLayout,
  dtype,
  InvalidLayoutError,
  OutOfBoundsError,
  ProtocolError,
  UnknownDTypeError,
} from './index.js';

const FUZZ = { seed: 7, numRuns: 400, interruptAfterTimeLimit: 8000 } as const;

type Outcome = { layout: Record<string, unknown> } | { error: string };

function outcome(read: () => CudaArrayInterfaceLayout): Outcome {
  try {
    const l = read();
    return {
      layout: {
        ptr: l.ptr,
        readonly: l.readonly,
        dtype: l.dtype,
        shape: [...l.shape],
        strides: [...l.strides],
        isCContiguous: l.isCContiguous,
        isFContiguous: l.isFContiguous,
        producerStream: l.producerStream,
      },
    };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const fresh = (answer: unknown) => outcome(() => new CudaArrayInterfaceReader().read(answer));

const base = {
  shape: [4, 2],
  typestr: '<f4',
  data: [0x1000n, false] as [bigint, boolean],
  strides: null,
  version: 3,
  stream: null,
};

describe('CudaArrayInterfaceReader', () => {
  it('reads an answer as its fields say', () => {
    const l = new CudaArrayInterfaceReader().read({ ...base, strides: [4, 16], data: [4096, true], stream: 7 });
    expect([
      l.ptr,
      l.readonly,
      l.dtype,
      l.shape,
      l.strides,
      l.isCContiguous,
      l.isFContiguous,
      l.producerStream,
    ]).toEqual([4096n, true, dtype('float32'), [4, 2], [1, 4], false, true, 7n]);
  });

  it('returns the same layout while the answers say the same, and a new one when the address or stream moves', () => {
    const reader = new CudaArrayInterfaceReader();
    const first = reader.read({ ...base });
    expect(reader.read({ ...base, data: [0x1000n, false] })).toBe(first); // a new answer, the same content
    const moved = reader.read({ ...base, data: [0x2000n, false] });
    expect(moved).not.toBe(first);
    expect([moved.ptr, moved.shape]).toEqual([0x2000n, [4, 2]]);
    expect(reader.read({ ...base, data: [0x2000n, false], stream: 5n }).producerStream).toBe(5n);
    expect(reader.read({ ...base, shape: [8] }).shape).toEqual([8]);
  });

  it('refuses a bad answer after good ones with the error a fresh reading gives, and reads in full after it', () => {
    const reader = new CudaArrayInterfaceReader();
    reader.read({ ...base });
    expect(() => reader.read({ ...base, version: 2 })).toThrow(ProtocolError);
    expect(() => reader.read({ ...base, mask: {} })).toThrow(/masked/);
    expect(() => reader.read({ ...base, stream: 0 })).toThrow(/stream is 0/);
    expect(() => reader.read({ ...base, data: [-1, false] })).toThrow(ProtocolError);
    expect(() => reader.read({ ...base, data: [(1n << 64n) - 8n, false] })).toThrow(OutOfBoundsError);
    expect(() => reader.read({ ...base, typestr: '<x9' })).toThrow(UnknownDTypeError);
    expect(() => reader.read({ ...base, strides: [3, 4] })).toThrow(InvalidLayoutError);
    expect(reader.read({ ...base }).ptr).toBe(0x1000n);
  });

  it('sees a change to an answer it read before, unless the answer can never change', () => {
    const reader = new CudaArrayInterfaceReader();
    const live = { ...base, data: [0x1000n, false] as [bigint, boolean], shape: [4, 2] };
    expect(reader.read(live).ptr).toBe(0x1000n);
    live.data[0] = 0x5000n;
    expect(reader.read(live).ptr).toBe(0x5000n);
    live.shape[0] = 9;
    expect(reader.read(live).shape).toEqual([9, 2]);
    live.version = 1;
    expect(() => reader.read(live)).toThrow(/version/);

    const shallow = Object.freeze({ ...base, data: [0x1000n, false] as [bigint, boolean] });
    reader.read(shallow);
    reader.read(shallow);
    shallow.data[0] = 0x6000n; // frozen, but its data array is not
    expect(reader.read(shallow).ptr).toBe(0x6000n);

    const immutable = Object.freeze({
      ...base,
      shape: Object.freeze([4, 2]),
      data: Object.freeze([0x7000n, false] as const),
    });
    const once = reader.read(immutable);
    expect(reader.read(immutable)).toBe(once);
    expect(reader.read(immutable)).toBe(once);
  });

  it('does not trust a frozen answer whose field is a getter', () => {
    let address = 0x1000n;
    const answer = Object.freeze({
      ...base,
      get data() {
        return Object.freeze([address, false]);
      },
    });
    const reader = new CudaArrayInterfaceReader();
    for (const next of [0x1000n, 0x2000n, 0x3000n]) {
      address = next;
      expect(reader.read(answer).ptr).toBe(next);
    }
  });

  it('agrees with a fresh reading of each answer, whatever came before (fast-check)', () => {
    const extent = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(-1, 1.5, NaN, 2 ** 53));
    const address = fc.oneof(
      fc.constantFrom<unknown>(0x1000n, 0x2000n, 0n, (1n << 64n) - 4n, 1n << 64n, -1n, 4096, -4096, 1.5, 'x'),
      fc.bigInt({ min: 0n, max: 1n << 20n }),
    );
    const answer = fc.record(
      {
        shape: fc.oneof(fc.constantFrom<unknown>([4, 2], [4]), fc.array(extent, { maxLength: 3 })),
        typestr: fc.constantFrom<unknown>('<f4', '<f8', '|u1', '<x1', 5),
        data: fc.oneof(fc.tuple(address, fc.boolean()), fc.constantFrom<unknown>([0x1000n], null, 'data')),
        strides: fc.oneof(
          fc.constantFrom<unknown>(null, undefined, [8, 4], [4], [16, 4]),
          fc.array(fc.integer({ min: -16, max: 16 }), { maxLength: 3 }),
        ),
        version: fc.constantFrom<unknown>(3, 3, 4, 2, '3'),
        stream: fc.constantFrom<unknown>(null, undefined, 1, 2n, 0, 0n, -1, 7n, 2 ** 53),
        mask: fc.constantFrom<unknown>(undefined, null, {}),
      },
      { requiredKeys: ['shape', 'typestr', 'data', 'version'] },
    );
    const step = fc.oneof(
      answer.map((a) => ({ answer: a })),
      fc.constant({ again: true as const }), // the previous answer object again, perhaps mutated
      fc.record({
        mutate: fc.constantFrom('ptr', 'shape', 'stream'),
        value: fc.constantFrom<unknown>(0x3000n, 6, 9n, 0),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const reader = new CudaArrayInterfaceReader();
        let previous: Record<string, unknown> | undefined;
        for (const s of steps) {
          if ('answer' in s) previous = structuredClone(s.answer) as Record<string, unknown>;
          else if ('mutate' in s && previous !== undefined) {
            if (s.mutate === 'ptr' && Array.isArray(previous['data'])) (previous['data'] as unknown[])[0] = s.value;
            if (s.mutate === 'shape' && Array.isArray(previous['shape'])) (previous['shape'] as unknown[])[0] = s.value;
            if (s.mutate === 'stream') previous['stream'] = s.value;
          }
          if (previous === undefined) continue;
          const answerNow = previous;
          expect(outcome(() => reader.read(answerNow))).toEqual(fresh(answerNow));
        }
      }),
      FUZZ,
    );
  });
});
