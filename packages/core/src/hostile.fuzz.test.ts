// Fuzz suite of issue 20, core's surfaces that need no GPU: launch configs (the limits of
// every device, cooperative with clusters, unknown keys), the native packing of launch
// parameters (every [offset, offset + size) inside the buffer and apart from the header),
// graph builders and conditional counts, and the NCCL overlap rule. Each input is accepted
// exactly when a model of the rule accepts it, else refused with the named error. Seeded
// and bounded (CUDA_JS_FUZZ_RUNS and CUDA_JS_FUZZ_SEED for the long, nightly mode).
import { driver, type CUfunction } from '@cuda-js/bindings';
import { PACKED_LAUNCH_HEADER } from '@cuda-js/bindings/runtime';
import { fuzzParameters, fuzzTimeout } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conditionalBodyCount } from './graph/graph-conditional.js';
import {
  CollectiveArgumentError,
  CoreOptionError,
  GraphArgumentError,
  GraphBuilder,
  LaunchConfig,
  LaunchConfigError,
} from './index.js';
import { checkCollectiveOverlap } from './nccl/collective-memory.js';

const RUNS = 200;
const params = fuzzParameters(RUNS);

const extent = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 1100 }) },
  { weight: 2, arbitrary: fc.constantFrom(64, 65, 1024, 1025, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 1.5, NaN, '4', null, 2 ** 32) },
);
const dim = fc.oneof(
  extent,
  fc.array(extent, { minLength: 1, maxLength: 3 }),
  fc.record({ x: extent, y: extent, z: extent }, { requiredKeys: ['x'] }),
  fc.record({ x: extent, w: extent }), // an unknown key
);

/** [x, y, z] of a Dim3 the model takes, or undefined for one it refuses. */
function modelDim(value: unknown): [number, number, number] | undefined {
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 2 ** 32 - 1;
  let dims: unknown[];
  if (typeof value === 'number') dims = [value];
  else if (Array.isArray(value)) dims = value;
  else if (value !== null && typeof value === 'object') {
    if (Object.keys(value).some((k) => k !== 'x' && k !== 'y' && k !== 'z')) return undefined;
    const v = value as { x?: unknown; y?: unknown; z?: unknown };
    dims = [v.x, v.y ?? 1, v.z ?? 1];
  } else return undefined;
  const [x, y = 1, z = 1] = dims;
  return ok(x) && ok(y) && ok(z) ? [x, y, z] : undefined;
}

describe('fuzz: launch configs (issue 20)', () => {
  it(
    'are made exactly when every CUDA device could run them, else refused by name before any device is asked',
    () => {
      fc.assert(
        fc.property(
          dim,
          dim,
          fc.option(dim, { nil: undefined }),
          fc.constantFrom<unknown>(undefined, true, false),
          (grid, block, cluster, cooperative) => {
            const options = {
              grid,
              block,
              ...(cluster === undefined ? {} : { cluster }),
              ...(cooperative === undefined ? {} : { cooperative }),
            };
            let made: LaunchConfig | undefined;
            try {
              made = new LaunchConfig(options as never);
            } catch (error) {
              expect(error instanceof LaunchConfigError || error instanceof CoreOptionError, String(error)).toBe(true);
            }
            const g = modelDim(grid);
            const b = modelDim(block);
            const c = cluster === undefined ? undefined : modelDim(cluster);
            const sound =
              g !== undefined &&
              b !== undefined &&
              (cluster === undefined || c !== undefined) &&
              b[0] <= 1024 &&
              b[1] <= 1024 &&
              b[2] <= 64 &&
              b[0] * b[1] * b[2] <= 1024 &&
              g[0] <= 2 ** 31 - 1 &&
              g[1] <= 65535 &&
              g[2] <= 65535 &&
              !(cooperative === true && cluster !== undefined) &&
              (c === undefined || (c[0] * c[1] * c[2] <= 2 ** 31 - 1 && g.every((n, i) => n % c[i]! === 0)));
            expect(made !== undefined, JSON.stringify(options)).toBe(sound);
            if (made) expect([made.grid, made.block]).toEqual([g, b]);
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: the native packing of launch parameters (issue 20)', () => {
  const offset = fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constantFrom(-8, 2 ** 32, 1.5, NaN));
  const size = fc.oneof(
    fc.constantFrom(1, 2, 4, 8, 16),
    fc.integer({ min: 1, max: 40 }),
    fc.constantFrom(0, -8, 2 ** 31, 0.5),
  );
  const table = fc.array(fc.tuple(offset, size), { maxLength: 6 });

  it(
    'createKernelParams takes a table exactly when every [offset, offset + size) lies in the buffer, apart from the others',
    () => {
      fc.assert(
        fc.property(fc.constantFrom(0, 8, 16, 64), table, (bytes, entries) => {
          const offsets = entries.map(([o]) => o);
          const sizes = entries.map(([, s]) => s);
          let made = true;
          try {
            driver.createKernelParams(new ArrayBuffer(bytes), offsets, sizes);
          } catch (error) {
            expect(error instanceof RangeError || error instanceof TypeError, String(error)).toBe(true);
            made = false;
          }
          const ranges = entries.map(([o, s]) => [o, o + s] as const);
          const sound =
            entries.every(
              ([o, s]) => Number.isInteger(o) && Number.isInteger(s) && o >= 0 && s > 0 && o + s <= bytes,
            ) && ranges.every(([a, b], i) => ranges.every(([c, d], j) => i === j || b <= c || d <= a));
          expect(made, JSON.stringify({ bytes, entries })).toBe(sound);
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'createPackedLaunch keeps every parameter out of its header, which must fit the buffer at a multiple of 8',
    () => {
      const F = 0x1234n as CUfunction;
      fc.assert(
        fc.property(
          fc.constantFrom(48, 64, 96, 128),
          fc.constantFrom(0, 8, 16, 20, 32, 48, 80),
          table,
          (bytes, header, entries) => {
            let made = true;
            try {
              driver.createPackedLaunch(
                F,
                new ArrayBuffer(bytes),
                entries.map(([o]) => o),
                entries.map(([, s]) => s),
                header,
              );
            } catch (error) {
              expect(error instanceof RangeError || error instanceof TypeError, String(error)).toBe(true);
              made = false;
            }
            const headerEnd = header + PACKED_LAUNCH_HEADER.bytes;
            const ranges = entries.map(([o, s]) => [o, o + s] as const);
            const sound =
              header % 8 === 0 &&
              headerEnd <= bytes &&
              entries.every(
                ([o, s]) =>
                  Number.isInteger(o) &&
                  Number.isInteger(s) &&
                  o >= 0 &&
                  s > 0 &&
                  o + s <= bytes &&
                  (o + s <= header || o >= headerEnd),
              ) &&
              ranges.every(([a, b], i) => ranges.every(([c, d], j) => i === j || b <= c || d <= a));
            expect(made, JSON.stringify({ bytes, header, entries })).toBe(sound);
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: graphs (issue 20)', () => {
  it(
    'new GraphBuilder(anything) is a GraphArgumentError; a switch takes 1 to 1024 cases, named otherwise',
    () => {
      const NewBuilder = GraphBuilder as unknown as new (...args: unknown[]) => unknown;
      fc.assert(
        fc.property(
          fc.array(fc.anything(), { maxLength: 3 }),
          fc.oneof(
            fc.integer({ min: -2, max: 1030 }),
            fc.constantFrom<unknown>(1e6, 2 ** 32, 0.5, NaN, '3', undefined),
          ),
          (args, count) => {
            expect(() => new NewBuilder(...args)).toThrow(GraphArgumentError);
            const sound = typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= 1024;
            if (sound) expect(conditionalBodyCount('switch', count, 'GraphBuilder.switch')).toBe(count);
            else
              expect(() => conditionalBodyCount('switch', count as never, 'GraphBuilder.switch')).toThrow(
                GraphArgumentError,
              );
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: the memory of a collective (issue 20)', () => {
  it(
    'send and recv may overlap only in place',
    () => {
      const at = fc.bigInt({ min: 0x1000n, max: 0x1100n });
      const bytes = fc.integer({ min: 0, max: 128 });
      fc.assert(
        fc.property(
          at,
          bytes,
          at,
          bytes,
          fc.oneof(at, fc.constant(undefined)),
          (send, sendBytes, recv, recvBytes, inPlace) => {
            const inPlaceSend = inPlace ?? recv;
            const overlap =
              sendBytes > 0 && recvBytes > 0 && send < recv + BigInt(recvBytes) && recv < send + BigInt(sendBytes);
            const call = () =>
              checkCollectiveOverlap(
                send,
                sendBytes,
                recv,
                recvBytes,
                inPlaceSend,
                'in place',
                'Communicator.allReduce',
              );
            if (overlap && send !== inPlaceSend) expect(call).toThrow(CollectiveArgumentError);
            else expect(call).not.toThrow();
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});
