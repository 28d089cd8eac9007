// Hostile inputs for the property tests of memory-view (and of core's packing):
// values that lie, Proxies that answer twice, and the soundness check of a view.
import fc from 'fast-check';
import { expect } from 'vitest';
import { MemoryViewError, StridedMemoryView } from '../src/index.js';

/** Numbers that break naive checks: NaN, infinities, -0, fractions, huge and negative values. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -4, max: 8 }),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.5, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), 2 ** 31 - 1, 1e300),
  fc.double(),
);

/** Anything at all where a number is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber,
  fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }),
  fc.constantFrom<unknown>('length', '4', undefined, null, {}, [], true, Symbol('s')),
);

/** A Proxy of an array whose entries answer `first` on the first read and `then` afterwards. */
export function twoFacedArray(values: readonly number[], then: unknown): unknown[] {
  const reads = new Map<string, number>();
  return new Proxy([...values], {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        const n = reads.get(key) ?? 0;
        reads.set(key, n + 1);
        if (n > 0) return then;
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** Shapes and strides: plain arrays of hostile numbers, two-faced Proxies, non-arrays. */
export const hostileExtents: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }) },
  { weight: 3, arbitrary: fc.array(hostileNumber, { maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }), hostileValue)
      .map(([v, t]) => twoFacedArray(v, t)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      undefined,
      null,
      'abc',
      { length: 2, 0: 1, 1: 1 },
      [1n],
      new Array(100).fill(1),
    ),
  },
);

/** dtype specs: names, DLPack triples with hostile fields, look-alikes. */
export const hostileDType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    'uint8',
    'float32',
    'float64',
    'int16',
    'float32x2',
    'complex64',
    'float4_e2m1fn',
    'bool',
    'nope',
  ),
  fc.record({
    code: fc.oneof(fc.integer({ min: 0, max: 300 }), hostileValue),
    bits: fc.oneof(fc.constantFrom(8, 16, 32, 64, 31), hostileValue),
    lanes: fc.oneof(fc.constantFrom(1, 2, 4), hostileValue),
  }),
);

/** A typed array or DataView whose own `length`/`byteOffset`/`byteLength`/`buffer` properties lie. */
export const lyingArray: fc.Arbitrary<ArrayBufferView> = fc
  .record({
    kind: fc.constantFrom('Float32Array', 'Uint8Array', 'Int16Array', 'Float64Array', 'DataView'),
    bytes: fc.constantFrom(0, 8, 16, 24),
    offset: fc.constantFrom(0, 8),
    lies: fc.subarray(['length', 'byteOffset', 'byteLength', 'buffer', 'constructor'] as const),
    lie: hostileNumber,
  })
  .map(({ kind, bytes, offset, lies, lie }) => {
    const buffer = new ArrayBuffer(bytes + offset);
    const ctor = (globalThis as unknown as Record<string, new (b: ArrayBuffer, o: number) => ArrayBufferView>)[kind]!;
    const array = new ctor(buffer, offset);
    for (const key of lies) {
      const value = key === 'buffer' ? new ArrayBuffer(1 << 16) : key === 'constructor' ? Float64Array : lie;
      Object.defineProperty(array, key, { value, configurable: true });
    }
    return array;
  });

/** Whether an error is one that memory-view names (or one of its documented argument TypeErrors). */
export function isNamed(error: unknown): boolean {
  if (error instanceof MemoryViewError) return true;
  return (
    error instanceof TypeError && /^(fromBuffer|fromPointer|new StridedMemoryView|stream must be)/.test(error.message)
  );
}

/** Runs `make`; a named error passes, any other error fails the property, a view must be sound. */
export function namedOrSound(make: () => unknown): StridedMemoryView | undefined {
  let made: unknown;
  try {
    made = make();
  } catch (error) {
    if (!isNamed(error)) throw error;
    return undefined;
  }
  expect(StridedMemoryView.isView(made)).toBe(true);
  const view = made as StridedMemoryView;
  assertSound(view);
  return view;
}

const isSafeNonNegative = (n: unknown): boolean =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && !Object.is(n, -0);

/** The invariant: integer non-negative shape, integer strides, a valid pointer, every element inside the memory. */
export function assertSound(view: StridedMemoryView): void {
  const { shape, strides } = view;
  expect(Array.isArray(shape) && Array.isArray(strides)).toBe(true);
  expect(Object.isFrozen(shape) && Object.isFrozen(strides)).toBe(true);
  expect(strides.length).toBe(shape.length);
  for (const e of shape) expect(isSafeNonNegative(e), `extent ${String(e)}`).toBe(true);
  for (const s of strides) expect(Number.isSafeInteger(s), `stride ${String(s)}`).toBe(true);
  const itemsize = view.itemsize;
  expect(itemsize > 0 && Number.isFinite(itemsize)).toBe(true);
  const size = shape.reduce((a, b) => a * b, 1);
  expect(Number.isSafeInteger(size)).toBe(true);
  let lo = 0;
  let hi = 0;
  const empty = shape.includes(0);
  for (let i = 0; i < shape.length; i++) {
    const reach = (shape[i]! - 1) * strides[i]!;
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  const device = view.device;
  expect(Number.isInteger(device.type) && device.type > 0 && Number.isInteger(device.id) && device.id >= 0).toBe(true);
  expect(Number.isInteger(view.flags) && view.flags >= 0).toBe(true);
  if (view.buffer !== undefined) {
    expect(view.ptr).toBeUndefined();
    expect(isSafeNonNegative(view.byteOffset)).toBe(true);
    const length = new Uint8Array(view.buffer).byteLength;
    if (!empty) {
      expect(view.byteOffset + Math.floor(lo * itemsize)).toBeGreaterThanOrEqual(0);
      expect(view.byteOffset + Math.ceil((hi + 1) * itemsize)).toBeLessThanOrEqual(length);
    } else {
      expect(view.byteOffset).toBeLessThanOrEqual(length);
    }
  } else {
    const ptr = view.ptr;
    expect(typeof ptr).toBe('bigint');
    expect(ptr! >= 0n && ptr! < 1n << 64n).toBe(true);
    if (!empty) {
      expect(ptr! + BigInt(Math.floor(lo * itemsize)) >= 0n).toBe(true);
      expect(ptr! + BigInt(Math.ceil((hi + 1) * itemsize)) <= 1n << 64n).toBe(true);
    }
  }
}

/** Seeded and bounded: the same runs every time, and never more than a few seconds. */
// The long, nightly mode (CUDA_JS_FUZZ_RUNS, CUDA_JS_FUZZ_SEED; see @cuda-js/test-support/fuzz, which only
// *.test.ts files may import) runs every input it is given, with no time limit.
const LONG_RUNS = Number(process.env['CUDA_JS_FUZZ_RUNS'] || 0);
export const FUZZ =
  Number.isSafeInteger(LONG_RUNS) && LONG_RUNS > 0
    ? { seed: Number(process.env['CUDA_JS_FUZZ_SEED'] || 20), numRuns: LONG_RUNS }
    : ({ seed: 42, numRuns: 300, interruptAfterTimeLimit: 8000 } as const);
