// Property-based tests (fast-check, seeded and bounded) of argument packing and
// LaunchConfig: hostile arguments are a named error (LaunchArgumentError,
// LaunchConfigError) or are packed as what they claim: an address in [0, 2^64),
// integer extents and strides. Packing needs no driver: the layout is given.
import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, StridedMemoryView } from '@cuda-js/memory-view';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { KernelParametersError, LaunchArgumentError, LaunchConfigError } from './errors.js';
import { LaunchConfig } from './launch/launch-config.js';
import { LaunchPlan } from './device/launch-plan.js';

vi.mock('@cuda-js/streams', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@cuda-js/streams')>()),
  orderStreams: vi.fn(),
}));

// The long, nightly mode (CUDA_JS_FUZZ_RUNS, CUDA_JS_FUZZ_SEED) runs every input it is given, with no time limit.
const LONG = fuzzParameters(300);
const FUZZ = LONG.long
  ? { seed: LONG.seed, numRuns: LONG.numRuns }
  : ({ seed: 42, numRuns: 300, interruptAfterTimeLimit: 8000 } as const);

const hostileNumber = fc.oneof(
  fc.integer({ min: -4, max: 8 }),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.5, 2 ** 31, 2 ** 32, 2 ** 32 - 1, 2 ** 53, -(2 ** 53), 1e300),
  fc.double(),
);
const hostileAddress = fc.oneof(
  fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }),
  fc.constantFrom(-1n, 0n, (1n << 64n) - 1n, 1n << 64n),
  hostileNumber,
);
const hostileValue = fc.oneof(
  hostileNumber,
  hostileAddress,
  fc.constantFrom<unknown>('no', 'true', undefined, null, {}, [], 1, 0, true, false),
);

/** A plan of one array slot (pointer, 2 extents, 2 strides) and one pointer parameter. */
function plans() {
  const parameters = Array.from({ length: 5 }, (_, i) => ({ offset: i * 8, size: 8 }));
  const layout = new LaunchPlan({ handle: 0x1234n, name: 'k', parameters }, [
    { kind: 'array', ndim: 2, shape: true, strides: true },
  ]);
  const raw = new LaunchPlan({ handle: 0x1234n, name: 'k', parameters: [{ offset: 0, size: 8 }] });
  return { layout, raw };
}

function bytesOf(plan: LaunchPlan): DataView {
  const b = plan.parameterBytes;
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

const hostileArray = fc.oneof(
  fc
    .record({
      shape: fc.array(hostileNumber, { maxLength: 3 }),
      data: fc.tuple(hostileAddress, fc.boolean()),
      strides: fc.option(fc.array(hostileNumber, { maxLength: 3 }), { nil: null }),
      stream: fc.option(hostileValue, { nil: undefined }),
      typestr: fc.constantFrom('<f4', '|u1'),
    })
    .map((cai) => ({
      [CUDA_ARRAY_INTERFACE]: () => ({ version: 3, ...cai }),
    })),
  fc
    .record({
      data: hostileAddress,
      shape: fc.array(hostileNumber, { maxLength: 3 }),
      strides: fc.option(fc.array(hostileNumber, { maxLength: 3 }), { nil: null }),
      device: fc.record({ type: fc.constantFrom(2, 3, 13), id: fc.constantFrom(0, NaN, -1) }),
    })
    .map((t) => ({
      [DLPACK_DEVICE]: () => [t.device.type, t.device.id],
      [DLPACK]: () => ({
        version: { major: 1, minor: 3 },
        dtype: { code: 2, bits: 32, lanes: 1 },
        byteOffset: 0,
        ...t,
      }),
    })),
  fc
    .tuple(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 2 }),
    )
    .map(([ptr, shape]) => {
      try {
        return StridedMemoryView.fromPointer(ptr, { dtype: 'float32', shape });
      } catch {
        return {};
      }
    }),
  fc.constant(Object.create(StridedMemoryView.prototype) as object),
);

describe('hostile input: argument packing', () => {
  it('writes only addresses in [0, 2^64) and integer extents and strides, or names the argument', () => {
    const { layout, raw } = plans();
    fc.assert(
      fc.property(hostileArray, (arg) => {
        for (const plan of [raw, layout]) {
          try {
            plan.pack([arg], 1n);
          } catch (error) {
            expect(error).toBeInstanceOf(LaunchArgumentError);
            continue;
          }
          const v = bytesOf(plan);
          const ptr = v.getBigUint64(0, true);
          // what was written is the address the argument claims, not a wrapped one
          const claimed = (arg as StridedMemoryView).ptr ?? ptr;
          expect(typeof claimed === 'bigint' && claimed >= 0n && claimed < 1n << 64n).toBe(true);
          if (plan === layout) for (let i = 1; i < 3; i++) expect(v.getBigInt64(i * 8, true) >= 0n).toBe(true);
        }
      }),
      FUZZ,
    );
  });

  it('refuses a negative or overflowing CUDA array interface address instead of wrapping it', () => {
    const { raw } = plans();
    const cai = (address: bigint) => ({
      [CUDA_ARRAY_INTERFACE]: () => ({ version: 3, shape: [1], typestr: '<f4', data: [address, false] }),
    });
    expect(() => raw.pack([cai(-8n)], 1n)).toThrow(LaunchArgumentError);
    expect(() => raw.pack([cai(1n << 64n)], 1n)).toThrow(LaunchArgumentError);
    raw.pack([cai((1n << 64n) - 4n)], 1n);
    expect(bytesOf(raw).getBigUint64(0, true)).toBe((1n << 64n) - 4n);
  });
});

describe('hostile input: LaunchConfig', () => {
  const dim = fc.oneof(hostileNumber, fc.array(hostileNumber, { maxLength: 4 }), hostileValue);
  it('takes only booleans for cooperative and checks that grid × block fit', () => {
    fc.assert(
      fc.property(
        fc.record({
          grid: dim,
          block: dim,
          cluster: fc.option(dim, { nil: undefined }),
          sharedMemory: fc.option(hostileValue, { nil: undefined }),
          cooperative: fc.option(hostileValue, { nil: undefined }),
        }),
        (options) => {
          let config: LaunchConfig;
          try {
            config = LaunchConfig.from(options as never);
          } catch (error) {
            expect(error).toBeInstanceOf(LaunchConfigError);
            return;
          }
          for (const d of [...config.grid, ...config.block])
            expect(Number.isInteger(d) && d >= 1 && d <= 2 ** 32 - 1).toBe(true);
          expect(config.threadsPerBlock).toBeLessThanOrEqual(2 ** 31 - 1);
          expect(typeof config.cooperative).toBe('boolean');
          expect(
            Number.isInteger(config.sharedMemory) && config.sharedMemory >= 0 && config.sharedMemory <= 2 ** 32 - 1,
          ).toBe(true);
        },
      ),
      FUZZ,
    );
    expect(() => new LaunchConfig({ grid: 1, block: 1, cooperative: 'no' as never })).toThrow(LaunchConfigError);
    expect(() => new LaunchConfig({ grid: 1, block: [65536, 65536] })).toThrow(LaunchConfigError);
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => new LaunchConfig({ grid: 1n as never, block: circular as never })).toThrow(LaunchConfigError);
  });
});

// Issue 20: a parameters table is checked before a plan is made over it (it was taken as given, and 'x' or -8 gave engine errors).
describe('a kernel parameters table that describes no kernel', () => {
  const plan = (parameters: unknown) => () =>
    new LaunchPlan({ handle: 0x1234n, name: 'k', parameters: parameters as never });
  it('is a KernelParametersError naming what is wrong', () => {
    expect(plan('x')).toThrow(/k: the kernel's parameters table must be an array of \{ offset, size \}/);
    expect(plan([{ offset: 0, size: -8 }])).toThrow(/entry 0 must be \{ offset, size \} of integers with size > 0/);
    expect(
      plan([
        { offset: 0, size: 8 },
        { offset: 4, size: 8 },
      ]),
    ).toThrow(/entry 1 \(offset 4\) overlaps or precedes the parameter before it \(which ends at 8\)/);
    expect(
      plan([
        { offset: 8, size: 8 },
        { offset: 0, size: 8 },
      ]),
    ).toThrow(KernelParametersError);
    expect(plan(Array.from({ length: 100_000 }, (_, i) => ({ offset: i * 8, size: 8 })))).toThrow(
      /has 100000 entries; a kernel takes at most 32764 bytes/,
    );
    expect(plan([{ offset: 32760, size: 8 }])).toThrow(/reaches byte 32768/);
    expect(plan([null])).toThrow(KernelParametersError);
    expect(
      plan([
        { offset: 0, size: 8 },
        { offset: 8, size: 4 },
      ])(),
    ).toBeInstanceOf(LaunchPlan);
  });

  it('accepts exactly the sorted, apart tables of positive sizes (fast-check)', () => {
    const entry = fc.record({
      offset: fc.oneof(fc.integer({ min: 0, max: 64 }), hostileNumber),
      size: fc.oneof(fc.constantFrom(1, 4, 8), hostileNumber),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (table) => {
        let end = 0;
        const sound = table.every(({ offset, size }) => {
          const ok =
            Number.isSafeInteger(offset) &&
            Number.isSafeInteger(size) &&
            size > 0 &&
            offset >= end &&
            offset + size <= 32764;
          end = offset + size;
          return ok;
        });
        if (sound) expect(plan(table)()).toBeInstanceOf(LaunchPlan);
        else expect(plan(table)).toThrow(KernelParametersError);
      }),
      FUZZ,
    );
  });
});
