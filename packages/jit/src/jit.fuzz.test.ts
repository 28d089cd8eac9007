// Fuzz suite of issue 20, the JIT's surfaces: kernel constants (Proxies, getters, holes,
// lying lengths), integer literals past every 64-bit type, jit() options, disk-cache entries
// damaged in any way, and the simulator budget. Each gives the answer a model of the rule
// gives, or a named error; none hangs or writes the wrong element. Seeded and bounded
// (CUDA_JS_FUZZ_RUNS and CUDA_JS_FUZZ_SEED for the long, nightly mode).
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompileCache, type CacheEntry } from '@cuda-js/program';
import { fuzzParameters, fuzzTimeout } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JitError, jit, SimulatorError } from './index.js';

// Each run compiles a kernel for the simulator: a few milliseconds each, so fewer runs than elsewhere.
const RUNS = 20;
const params = fuzzParameters(RUNS);
const sim = { target: 'simulator' } as const;
const one = { grid: 1, block: 1 } as const;

/** A kernel made from source text, as a user's function would be (the JIT reads its text). */
const kernelOf = (body: string) => new Function('out', body) as (out: Float64Array) => void;

describe('fuzz: kernel constants (issue 20)', () => {
  /** A table of numbers as an array, a typed array, a Proxy that lies about its length, or one with holes. */
  const table = fc.record({
    values: fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 6 }),
    form: fc.constantFrom('array', 'float64', 'holes', 'lying-length', 'getter', 'proxy-keys'),
  });

  it(
    'a kernel reads the values the compile read, or the constants are refused by name',
    () => {
      fc.assert(
        fc.property(table, fc.integer({ min: 0, max: 7 }), ({ values, form }, index) => {
          let constant: unknown;
          if (form === 'array') constant = [...values];
          else if (form === 'float64') constant = Float64Array.from(values);
          else if (form === 'holes')
            constant = Object.assign(
              new Array(values.length + 1),
              values
                .slice(1)
                .map((v, i) => [i + 1, v])
                .reduce((o, [i, v]) => Object.assign(o, { [i!]: v }), {}),
            );
          else if (form === 'lying-length')
            constant = new Proxy([...values], { get: (t, k, r) => (k === 'length' ? 1e9 : Reflect.get(t, k, r)) });
          else if (form === 'getter') {
            let reads = 0;
            constant = Object.defineProperty([...values], 0, {
              get: () => (reads++ === 0 ? values[0] : 999_999),
              enumerable: true,
            });
          } else constant = new Proxy([...values], { ownKeys: () => [] });
          const out = new Float64Array(1);
          let kernel: { launch(o: typeof one, a: Float64Array): void };
          try {
            kernel = jit(kernelOf(`out[0] = T[${index}];`), { ...sim, constants: { T: constant as number[] } });
            kernel.launch(one, out);
          } catch (error) {
            expect(error, String(error)).toBeInstanceOf(JitError);
            return;
          }
          // a table the compile took is what it was when it was read: never the getter's second answer
          expect(index < values.length && form !== 'holes' && form !== 'lying-length').toBe(true);
          expect(out[0]).toBe(values[index]);
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: integer literals (issue 20)', () => {
  const literal = fc.oneof(
    fc.integer({ min: 0, max: 7 }).map(String),
    fc.constantFrom(
      '2**64',
      '18446744073709551616',
      '1e300',
      '9223372036854775808',
      '4294967296',
      '-1',
      '0x10',
      '1.5',
      '2**53',
    ),
  );

  it(
    'an index inside the array writes that element; any other is a named error, never a write to another element',
    () => {
      fc.assert(
        fc.property(literal, (text) => {
          const out = new Float64Array(8);
          let wrote = true;
          try {
            jit(kernelOf(`out[${text}] = 7;`), sim).launch(one, out);
          } catch (error) {
            expect(error, String(error)).toBeInstanceOf(JitError);
            wrote = false;
          }
          // biome-ignore lint/security/noGlobalEval: the model evaluates the literal as JS does
          const value = Number((0, eval)(text));
          const inside = Number.isInteger(value) && value >= 0 && value < 8;
          expect(wrote).toBe(inside);
          expect([...out].filter((v) => v !== 0).length).toBe(inside ? 1 : 0);
          if (inside) expect(out[value]).toBe(7);
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: jit() options (issue 20)', () => {
  const option = fc.record(
    {
      target: fc.constantFrom<unknown>('simulator', 'gpu', 'cpu', 1),
      name: fc.constantFrom<unknown>('k', '', 5, null),
      fma: fc.constantFrom<unknown>(true, 'yes'),
      simulatorBudget: fc.constantFrom<unknown>(1, 1000, 0, -1, 1.5, '9', 2 ** 60),
      fastmath: fc.constant(true),
      blocks: fc.constant(1),
    },
    { requiredKeys: [] },
  );

  it(
    'makes a kernel or names the option that is wrong',
    () => {
      fc.assert(
        fc.property(fc.oneof(option, fc.constantFrom<unknown>(null, 5, 'simulator', [])), (options) => {
          try {
            jit(kernelOf('out[0] = 1;'), options as never);
          } catch (error) {
            const named = error instanceof JitError;
            expect(named, String(error)).toBe(true);
          }
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: disk-cache entries damaged in any way (issue 20)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cuda-js-fuzz-cache-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const KEY = 'ab'.repeat(16);
  const entry: CacheEntry = {
    codeType: 'ptx',
    name: 'k',
    code: new TextEncoder().encode('.version 8.0\n'),
    symbolMapping: { k: 'k' },
    metadata: { abi: '1' },
  };
  new CompileCache({ directory: folder }).set(KEY, entry);
  const file = join(folder, KEY.slice(0, 2), readdirSync(join(folder, KEY.slice(0, 2)))[0]!);

  /** A well-formed file around a header of any content, with a correct code digest. */
  const framed = (header: unknown, code: Uint8Array): Buffer => {
    const json = Buffer.from(JSON.stringify(header) ?? 'null', 'utf8');
    const prefix = Buffer.alloc(16);
    Buffer.from('CUDAJSOC', 'latin1').copy(prefix, 0);
    prefix.writeUInt32LE(2, 8);
    prefix.writeUInt32LE(json.length, 12);
    return Buffer.concat([prefix, json, code]);
  };
  const header = fc.record(
    {
      key: fc.constantFrom<unknown>(KEY, 'cd'.repeat(16), 5),
      codeType: fc.constantFrom<unknown>('ptx', 'cubin', 'ltoir', 'exe', null),
      name: fc.oneof(fc.string(), fc.anything()),
      symbolMapping: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
      metadata: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
      codeLength: fc.constantFrom<unknown>(13, 0, 12, -1, '13'),
    },
    { requiredKeys: [] },
  );
  const damage = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc
      .tuple(header, fc.uint8Array({ minLength: 0, maxLength: 16 }))
      .map(([h, code]) => framed({ ...h, codeDigest: createHash('sha256').update(code).digest('hex') }, code)),
    fc
      .integer({ min: 0, max: 200 })
      .map((n) =>
        framed(
          { key: KEY, codeType: 'ptx', name: 'k', symbolMapping: {}, codeLength: 13, codeDigest: 'x' },
          entry.code,
        ).subarray(0, n),
      ),
  );

  it(
    'a read gives a miss or a well-formed entry, never a throw',
    () => {
      fc.assert(
        fc.property(damage, (bytes) => {
          writeFileSync(file, bytes);
          const got = new CompileCache({ directory: folder }).get(KEY);
          if (got === undefined) return;
          expect(['ptx', 'cubin', 'ltoir', 'fatbin', 'object', 'library', 'nvvm']).toContain(got.codeType);
          expect(got.code.byteLength).toBeGreaterThan(0);
          expect(typeof got.name).toBe('string');
          const strings = (record: unknown) =>
            record !== null &&
            typeof record === 'object' &&
            !Array.isArray(record) &&
            Object.values(record).every((v) => typeof v === 'string');
          expect(strings(got.symbolMapping), JSON.stringify(got.symbolMapping)).toBe(true);
          if (got.metadata !== undefined) expect(strings(got.metadata), JSON.stringify(got.metadata)).toBe(true);
        }),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});

describe('fuzz: the simulator budget (issue 20)', () => {
  it(
    'a loop within the budget completes with its answer; one past it stops with a SimulatorError',
    () => {
      const kernels = new Map<number, { launch(o: typeof one, out: Float64Array): void }>();
      const counting = jit(kernelOf('let n = 0; for (let i = 0; i < out[1]; i++) n += 1; out[0] = n;'), sim);
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 2000 }),
          fc.constantFrom(1, 10, 100, 1000, 1500),
          (iterations, budget) => {
            const out = Float64Array.of(0, iterations);
            const bounded =
              kernels.get(budget) ??
              jit(kernelOf('let n = 0; for (let i = 0; i < out[1]; i++) n += 1; out[0] = n;'), {
                ...sim,
                simulatorBudget: budget,
              });
            kernels.set(budget, bounded);
            try {
              bounded.launch(one, out);
            } catch (error) {
              expect(error).toBeInstanceOf(SimulatorError);
              expect(iterations).toBeGreaterThan(budget / 2);
              return;
            }
            expect(iterations).toBeLessThanOrEqual(budget);
            expect(out[0]).toBe(iterations);
            counting.launch(one, out);
            expect(out[0]).toBe(iterations);
          },
        ),
        params,
      );
    },
    fuzzTimeout(RUNS),
  );
});
