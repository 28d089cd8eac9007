// Fuzz suite of issue 20, memory-view's imports: objects that implement the array protocols
// badly (a key that is no function, a method that throws, an answer of any shape, a deleter
// called twice) give a view that lies inside its memory or a named error, never an engine
// TypeError such as "exporter[DLPACK_DEVICE] is not a function". Seeded and bounded
// (CUDA_JS_FUZZ_RUNS and CUDA_JS_FUZZ_SEED for the long, nightly mode).
import { fuzzParameters, fuzzTimeout } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileDType, hostileExtents, hostileValue, isNamed, namedOrSound } from '../test/hostile.js';
import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, StridedMemoryView } from './index.js';

const RUNS = 150;
const params = fuzzParameters(RUNS);

/** What the exporter's own code throws: it reaches the caller as it is (cause of the failure is the exporter's). */
class ExporterFault extends Error {}

/** A protocol member: a method answering `answer`, one that throws, or something that is no method. */
const member = (answer: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: answer.map((a) => () => a) },
    {
      weight: 1,
      arbitrary: fc.constant(() => {
        throw new ExporterFault('the exporter failed');
      }),
    },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(undefined, null, 5, 'dlpack', {}, [], Symbol('x')) },
  );

const hostData = fc.oneof(
  fc.constantFrom(0, 4, 16, 64).map((n) => new ArrayBuffer(n)),
  fc.constantFrom(16).map((n) => new SharedArrayBuffer(n)),
  fc.constantFrom<unknown>(0x7000_0000n, 0n, -1n, 1n << 64n, 0x1000n, 16, '0x1000', null, undefined),
);

/** A DLPack tensor of any shape: each field right, wrong or missing; the deleter counts its calls. */
const tensor = fc
  .record(
    {
      version: fc.oneof(
        fc.constant({ major: 1, minor: 3 }),
        fc.record({ major: hostileValue, minor: hostileValue }),
        fc.constantFrom<unknown>(undefined, 1, null),
      ),
      flags: fc.oneof(fc.constantFrom(0, 1, 2, 4), hostileValue),
      device: fc.oneof(
        fc.record({
          type: fc.constantFrom<unknown>(1, 2, 3, 13, 0, -1, 1.5, '1'),
          id: fc.constantFrom<unknown>(0, 1, -1, 2 ** 40, null),
        }),
        hostileValue,
      ),
      data: hostData,
      byteOffset: fc.oneof(fc.constantFrom(0, 4, 8), hostileValue),
      dtype: hostileDType,
      shape: hostileExtents,
      strides: fc.oneof(fc.constant(null), hostileExtents),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const calls = { deleter: 0 };
    return { fields: { ...fields, deleter: () => calls.deleter++ }, calls };
  });

const deviceAnswer = fc.oneof(
  fc.tuple(fc.constantFrom(1, 2, 3), fc.constantFrom(0, 1)),
  fc.array(hostileValue, { maxLength: 3 }),
  hostileValue,
);

const interfaceAnswer = fc.oneof(
  fc.record(
    {
      shape: hostileExtents,
      typestr: fc.constantFrom<unknown>('<f4', '|u1', '<i8', '>f8', 'f4', '<c8', '', 5),
      data: fc.oneof(
        fc.tuple(fc.constantFrom<unknown>(0x7000_0000n, 0n, -1n, 1n << 64n, 4096), fc.boolean()),
        hostileValue,
      ),
      strides: fc.oneof(fc.constant(null), hostileExtents),
      version: fc.constantFrom<unknown>(3, 2, 0, '3', undefined),
      stream: fc.constantFrom<unknown>(undefined, null, 1, 2, 0, -1, 2 ** 64),
    },
    { requiredKeys: [] },
  ),
  hostileValue,
);

/** Calls `make`; the exporter's own fault passes through as it is, anything else is named or sound. */
function viewOf(make: () => unknown): void {
  try {
    namedOrSound(make)?.close();
  } catch (error) {
    // the exporter's own fault, or a named error of a lazily read field (the device of a CUDA array interface view)
    if (!(error instanceof ExporterFault) && !isNamed(error)) throw error;
  }
}

describe('fuzz: objects that implement the array protocols badly (issue 20)', () => {
  it(
    'DLPack exporters: a sound view or a named error, and the deleter called at most once',
    () => {
      fc.assert(
        fc.property(
          member(tensor),
          member(deviceAnswer),
          fc.constantFrom<unknown>(-1, 1, 2, undefined),
          (dlpack, device, stream) => {
            let made: { calls: { deleter: number } } | undefined;
            let exports = 0;
            const exporter: Record<symbol, unknown> = {};
            if (typeof dlpack === 'function') {
              exporter[DLPACK] = () => {
                const answer = (dlpack as () => unknown)();
                if (answer !== null && typeof answer === 'object' && 'fields' in answer) {
                  made = answer as unknown as { calls: { deleter: number } };
                  exports++;
                  return (answer as { fields: object }).fields;
                }
                return answer;
              };
            } else exporter[DLPACK] = dlpack;
            exporter[DLPACK_DEVICE] = device;
            viewOf(() => StridedMemoryView.fromAny(exporter, { stream: stream as never }));
            viewOf(() => StridedMemoryView.fromDLPack(exporter, { stream: stream as never }));
            // each export's deleter at most once (the same tensor object answers every export here)
            if (made !== undefined) expect(made.calls.deleter).toBeLessThanOrEqual(exports);
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'CUDA array interface objects: a sound view or a named error',
    () => {
      fc.assert(
        fc.property(member(interfaceAnswer), fc.constantFrom<unknown>(-1, 1, 2, undefined), (cai, stream) => {
          viewOf(() => StridedMemoryView.fromAny({ [CUDA_ARRAY_INTERFACE]: cai }, { stream: stream as never }));
          viewOf(() =>
            StridedMemoryView.fromCudaArrayInterface({ [CUDA_ARRAY_INTERFACE]: cai } as never, {
              stream: stream as never,
            }),
          );
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'objects with both protocols, either, or neither, and protocol keys on prototypes and getters',
    () => {
      fc.assert(
        fc.property(
          member(tensor.map((t) => t.fields)),
          member(deviceAnswer),
          member(interfaceAnswer),
          fc.subarray(['dlpack', 'device', 'cai', 'getter', 'proto'] as const),
          (dlpack, device, cai, keys) => {
            const own: Record<symbol, unknown> = {};
            const target = keys.includes('proto') ? Object.create(own) : own;
            if (keys.includes('dlpack')) own[DLPACK] = dlpack;
            if (keys.includes('device')) own[DLPACK_DEVICE] = device;
            if (keys.includes('cai')) {
              if (keys.includes('getter')) {
                Object.defineProperty(own, CUDA_ARRAY_INTERFACE, {
                  get() {
                    throw new ExporterFault('getter');
                  },
                });
              } else own[CUDA_ARRAY_INTERFACE] = cai;
            }
            viewOf(() => StridedMemoryView.fromAny(target, { stream: -1 }));
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});
