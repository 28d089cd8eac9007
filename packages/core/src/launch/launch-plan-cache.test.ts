// A LaunchPlan remembers, per argument position, what is in its parameter
// buffer (a bigint, a view, a CUDA array interface layout) and writes an
// unchanged argument no more. These tests hold it to what a fresh plan, which
// remembers nothing, does with the same arguments: the same bytes, or the same
// named error, whatever came before at that position, including answers that
// change between launches. Packing needs no device: the layout is given.
import { CUDA_ARRAY_INTERFACE, ProtocolError, StridedMemoryView, UnknownDTypeError } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LaunchArgumentError } from '../errors.js';
import { LaunchPlan } from '../device/launch-plan.js';
import { f64, i32 } from './scalar.js';

// Ordering a stream after another needs the driver: record the calls instead.
vi.mock('@cuda-js/streams', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@cuda-js/streams')>()),
  orderStreams: vi.fn(),
}));
const ordered = vi.mocked(orderStreams);
beforeEach(() => ordered.mockClear());

const FUZZ = { seed: 11, numRuns: 300, interruptAfterTimeLimit: 8000 } as const;

/** k(void* a, void* b, int n): two pointer parameters and an i32. */
const parameters = [
  { offset: 0, size: 8 },
  { offset: 8, size: 8 },
  { offset: 16, size: 4 },
];
const plan = () => new LaunchPlan({ handle: 0x1234n, name: 'k', parameters });
/** k(float* x [extent, stride], double a): a JIT-style layout. */
const slotPlan = () =>
  new LaunchPlan(
    {
      handle: 0x1234n,
      name: 'k',
      parameters: [
        { offset: 0, size: 8 },
        { offset: 8, size: 8 },
        { offset: 16, size: 8 },
        { offset: 24, size: 8 },
      ],
    },
    [
      { kind: 'array', ndim: 1, shape: true, strides: true, dtype: 'float32', name: 'x' },
      { kind: 'scalar', type: 'f64', name: 'a' },
    ],
  );

/** A CUDA array interface object whose answer is a fresh object built from `state` on each call. */
function liveArray(state: { ptr: unknown; shape: unknown; version: unknown; stream: unknown; typestr: unknown }) {
  return {
    [CUDA_ARRAY_INTERFACE]: () => ({
      shape: state.shape,
      typestr: state.typestr,
      data: [state.ptr, false],
      strides: null,
      version: state.version,
      stream: state.stream,
    }),
  };
}

function outcome(p: LaunchPlan, args: readonly unknown[], stream = 0x7000n): string {
  try {
    p.pack(args, stream);
    return [...p.parameterBytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('LaunchPlan: the CUDA array interface as memory-view reads it', () => {
  it("refuses what memory-view refuses: a version before 3, an unknown typestr, a stream of 0, with memory-view's error as the cause", () => {
    const state = { ptr: 0x1000n, shape: [4], version: 2, stream: null as unknown, typestr: '<f4' };
    const arg = liveArray(state);
    const p = plan();
    const error = (() => {
      try {
        p.pack([arg, 0n, 1], 1n);
      } catch (e) {
        return e as LaunchArgumentError;
      }
    })();
    expect(error).toBeInstanceOf(LaunchArgumentError);
    expect(error?.message).toMatch(
      /^k: argument 0: not a CUDA array that cuda-js can pass \(CUDA array interface version 2 is not supported/,
    );
    expect(error?.cause).toBeInstanceOf(ProtocolError);
    state.version = 3;
    state.typestr = '<x3';
    expect(() => p.pack([arg, 0n, 1], 1n)).toThrow(expect.objectContaining({ cause: expect.any(UnknownDTypeError) }));
    state.typestr = '<f4';
    state.stream = 0;
    expect(() => p.pack([arg, 0n, 1], 1n)).toThrow('stream is 0');
    state.stream = null;
    p.pack([arg, 0n, 1], 1n);
    expect(new DataView(p.parameterBytes.buffer).getBigUint64(0, true)).toBe(0x1000n);
  });

  it("orders the launch stream after the answer's stream on every launch, also when nothing is written again", () => {
    const state = { ptr: 0x1000n, shape: [4], version: 3, stream: 0xa0n as unknown, typestr: '<f4' };
    const arg = liveArray(state);
    const p = plan();
    p.pack([arg, 0n, 1], 0x7000n);
    p.pack([arg, 0n, 1], 0x7000n);
    p.pack([arg, 0n, 1], 0xa0n); // the producer's own stream: nothing to wait for
    state.stream = 2; // the per-thread default stream
    p.pack([arg, 0n, 1], 0x7000n);
    expect(ordered.mock.calls).toEqual([
      [0xa0n, 0x7000n],
      [0xa0n, 0x7000n],
      [2n, 0x7000n],
    ]);
  });

  it('writes the new address of an answer that moved, and refuses one that is not an array any more', () => {
    const state = { ptr: 0x1000n as unknown, shape: [4] as unknown, version: 3, stream: null, typestr: '<f4' };
    const arg = liveArray(state);
    const p = plan();
    const first = outcome(p, [arg, arg, 1]);
    state.ptr = 0x2000n;
    expect(outcome(p, [arg, arg, 1])).not.toBe(first);
    expect(outcome(p, [arg, arg, 1])).toBe(outcome(plan(), [arg, arg, 1]));
    state.ptr = -8n;
    expect(outcome(p, [arg, 0n, 1])).toMatch(/LaunchArgumentError: k: argument 0: .*address -8n is outside/);
    state.ptr = 0x3000n;
    state.shape = 'x';
    expect(outcome(p, [arg, 0n, 1])).toMatch(/argument 0: .*shape must be an array/);
  });

  it('rewrites a position that held something else in between, even when the array says what it said before', () => {
    const arg = liveArray({ ptr: 0x1000n, shape: [4], version: 3, stream: null, typestr: '<f4' });
    const p = plan();
    const once = outcome(p, [arg, 0n, 1]);
    outcome(p, [0x5000n, 0n, 1]);
    expect(outcome(p, [arg, 0n, 1])).toBe(once);
    outcome(p, [f64(2), 0n, 1]);
    expect(outcome(p, [arg, 0n, 1])).toBe(once);
    const s = slotPlan();
    const slotOnce = outcome(s, [arg, 1.5]);
    outcome(s, [StridedMemoryView.fromPointer(0x9000n, { dtype: 'float32', shape: [2] }), 1.5]);
    expect(outcome(s, [arg, 1.5])).toBe(slotOnce);
  });

  it('checks an answer against an array slot, and again when it changes', () => {
    const state = { ptr: 0x1000n, shape: [4] as unknown, version: 3, stream: null, typestr: '<f4' };
    const arg = liveArray(state);
    const s = slotPlan();
    expect(outcome(s, [arg, 1.5])).toBe(outcome(slotPlan(), [arg, 1.5]));
    state.shape = [2, 2];
    expect(outcome(s, [arg, 1.5])).toMatch(/argument 0 \('x'\): the array has 2 dimension\(s\), the kernel takes 1/);
    state.shape = [4];
    state.typestr = '<f8';
    expect(outcome(s, [arg, 1.5])).toMatch(/the array holds float64, the kernel takes float32/);
  });
});

describe('LaunchPlan: remembered arguments', () => {
  const closedView = () => {
    const v = StridedMemoryView.fromPointer(0x8000n, { dtype: 'float32', shape: [4] });
    v.close();
    return v;
  };

  it('packs what a fresh plan packs, whatever the position held before (fast-check)', () => {
    const state = {
      ptr: 0x1000n as unknown,
      shape: [4] as unknown,
      version: 3 as unknown,
      stream: null as unknown,
      typestr: '<f4',
    };
    const live = liveArray(state);
    const frozenAnswer = Object.freeze({
      shape: Object.freeze([4]),
      typestr: '<f4',
      data: Object.freeze([0x4000n, false] as const),
      strides: null,
      version: 3,
    });
    const frozen = { [CUDA_ARRAY_INTERFACE]: () => frozenAnswer };
    const view = StridedMemoryView.fromPointer(0x6000n, { dtype: 'float32', shape: [4] });
    const pointerArg = fc.oneof(
      fc.constantFrom<unknown>(live, frozen, view, 0x5000n, -1n, 1n << 64n, f64(1), i32(2), 7, null, 'p', {}),
      fc.bigInt({ min: 0n, max: 1n << 40n }),
      fc.constant(undefined).map(() => closedView()),
    );
    const intArg = fc.constantFrom<unknown>(1, -5, 2 ** 31, 1.5, i32(3), 3n, f64(1));
    const changes = fc.record({
      ptr: fc.constantFrom<unknown>(0x1000n, 0x2000n, 4096, -4, 1n << 64n),
      shape: fc.constantFrom<unknown>([4], [8], [2, 2], 'x'),
      version: fc.constantFrom<unknown>(3, 3, 2),
      stream: fc.constantFrom<unknown>(null, undefined, 0xa0n, 0),
    });
    // most launches find the live array as the last one left it
    const change = fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: changes });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(pointerArg, pointerArg, intArg, change), { minLength: 1, maxLength: 10 }),
        (launches) => {
          const cached = plan();
          const cachedSlots = slotPlan();
          for (const [a, b, n, next] of launches) {
            Object.assign(state, next);
            expect(outcome(cached, [a, b, n])).toBe(outcome(plan(), [a, b, n]));
            expect(outcome(cachedSlots, [a, 2.5])).toBe(outcome(slotPlan(), [a, 2.5]));
          }
        },
      ),
      FUZZ,
    );
  });
});
