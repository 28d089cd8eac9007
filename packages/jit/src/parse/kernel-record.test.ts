import { errorOf } from '@cuda-js/test-support/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jit } from '../jit.js';
import { RewrittenKernelError, UnsupportedSyntaxError } from '../errors.js';
import { KERNEL_RECORD_KEY, kernelRecordOf, type KernelRecord } from './kernel-record.js';
import { bundlerRenamedIntrinsic } from './kernel-names.js';

/** A function from text, as a bundle or minifier leaves it (no file of its own). */
function fromText<F = (...args: never[]) => unknown>(text: string, scope: Record<string, unknown> = {}): F {
  return new Function(...Object.keys(scope), `return ${text}`)(...Object.values(scope)) as F;
}

function withRecord<F extends (...args: never[]) => unknown>(
  fn: F,
  record: Omit<KernelRecord, 'version' | 'kind' | 'id'> & Partial<KernelRecord>,
): F {
  return Object.defineProperty(fn, Symbol.for(KERNEL_RECORD_KEY), {
    value: { version: 1, kind: 'kernel', id: 'app.ts:1:1', ...record },
    configurable: true,
  });
}

// the original: `(a: Float32Array, s: number) => {\n  const i = gpu.grid(1);\n  if (i < a.length) a[i] = a[i] * s;\n}`
const ORIGINAL = '(a: Float32Array, s: number) => {\n  const i = gpu.grid(1);\n  if (i < a.length) a[i] = a[i] * s;\n}';
const BLANKED = ORIGINAL.replace(': Float32Array', '              ').replace(': number', '        ');

describe('the kernel record of the build plugin', () => {
  it('is read instead of the minified text, with its imports under other names', () => {
    const minified = fromText<(a: Float32Array, s: number) => void>(
      '(t,e)=>{let n=r.grid(1);n<t.length&&(t[n]=t[n]*e)}',
      { r: {} },
    );
    const fn = withRecord(minified, {
      source: BLANKED,
      original: ORIGINAL,
      file: '/app/src/scale.ts',
      line: 7,
      column: 22,
      name: 'scale',
      imports: { gpu: { from: 'cuda-js', name: 'cuda' } },
    });
    expect(kernelRecordOf(fn)?.name).toBe('scale');
    const k = jit(fn, { target: 'simulator' });
    expect(k.name).toBe('scale');
    const a = new Float32Array([1, 2, 3, 4]);
    k.launch({ grid: 1, block: 4 }, a, 3);
    expect([...a]).toEqual([3, 6, 9, 12]);
  });

  it('locates errors in the original file by the record alone', () => {
    const original = '(a: Float32Array) => {\n  const i = cuda.grid(1);\n  a[i] = a[i] + missing;\n}';
    const fn = withRecord(fromText('(t)=>{t[0]=q}'), {
      source: original.replace(': Float32Array', '              '),
      original,
      file: '/nowhere/app.ts',
      line: 10,
      column: 5,
      imports: {},
    });
    const k = jit(fn, { target: 'simulator' });
    const error = errorOf<unknown>(() => {
      k.launch({ grid: 1, block: 1 }, new Float32Array(1));
    });
    expect(error).toMatchObject({ name: 'FreeVariableError', file: '/nowhere/app.ts', line: 12, column: 17 });
    expect((error as Error).message).toContain('a[i] = a[i] + missing;\n                ^~~~~~~');
  });

  it('maps through recorded positions where the text came from an earlier compile step', () => {
    // `[offset, line, column]`: the text's second line is line 40, column 3 of the file
    const source = '(a) => {\n  a[0] = nope;\n}';
    const fn = withRecord(fromText('(t)=>{t[0]=q}'), {
      source,
      file: '/nowhere/app.ts',
      line: 39,
      column: 1,
      positions: [
        [0, 39, 1],
        [9, 40, 3],
      ],
      imports: {},
    });
    expect(() => jit(fn, { target: 'simulator' }).launch({ grid: 1, block: 1 }, new Float32Array(1))).toThrow(
      expect.objectContaining({ line: 40, column: 12 }),
    );
  });

  it('refuses a record of another version, naming the plugin', () => {
    const fn = Object.defineProperty(() => {}, Symbol.for(KERNEL_RECORD_KEY), { value: { version: 99 } });
    expect(() => jit(fn, { target: 'simulator' })).toThrow(/@cuda-js\/unplugin.*version 99/);
  });
});

describe('a kernel record that lies (hostile input)', () => {
  const SOURCE = '(a) => {\n  a[0] = nope;\n}';
  const base = { source: SOURCE, file: '/nowhere/app.ts', line: 3, column: 1, imports: {} };
  const launch = (record: Record<string, unknown>) => () =>
    jit(withRecord(fromText('(t)=>{t[0]=q}'), record as never), { target: 'simulator' }).launch(
      { grid: 1, block: 1 },
      new Float32Array(1),
    );

  it.each([
    ['a column of 0', { ...base, column: 0 }],
    ['a negative line', { ...base, line: -2 }],
    ['a line of 1e300', { ...base, line: 1e300 }],
    ['a positions entry that is null', { ...base, positions: [null] }],
    ['a positions entry that is a number', { ...base, positions: [5] }],
    ['a positions entry of strings', { ...base, positions: [['a', 'b', 'c']] }],
    [
      'positions out of order',
      {
        ...base,
        positions: [
          [9, 4, 3],
          [0, 3, 1],
        ],
      },
    ],
    [
      'a positions offset past the source',
      {
        ...base,
        positions: [
          [0, 3, 1],
          [10_000, 9, 1],
        ],
      },
    ],
    ['an import that is null', { ...base, imports: { gpu: null } }],
    ['an import whose module is a number', { ...base, imports: { gpu: { from: 5, name: 'cuda' } } }],
    ['a kind that is none', { ...base, kind: 'banana' }],
  ])('refuses %s by naming the plugin, never a TypeError of its own or a RangeError', (_what, record) => {
    expect(launch(record)).toThrow(/the kernel record that @cuda-js\/unplugin attached to this function/);
  });

  it("reports the kernel's own error where the record's column is far along a line (no snippet of a million spaces)", () => {
    const oneLine = { ...base, source: '(a) => { a[0] = nope; }' };
    for (const column of [2 ** 29, 2 ** 40]) {
      const error = errorOf<Error & { line: number; column: number }>(launch({ ...oneLine, column }));
      expect(error).toMatchObject({ name: 'FreeVariableError', line: 3, column: column + 16 });
      expect(error.message.length).toBeLessThan(2000);
      expect(error.message).toContain('(a) => { a[0] = nope; }\n                ^~~~');
    }
  });

  it("property: any line, column and positions give the kernel's error at a 1-based place, or a refusal that names the plugin", () => {
    const place = fc.oneof(
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: 1, max: 2 ** 40 }),
      fc.constantFrom(0.5, Number.NaN, 1e300, 2 ** 53),
    );
    fc.assert(
      fc.property(
        place,
        place,
        fc.option(fc.array(fc.tuple(fc.integer({ min: -1, max: 30 }), place, place), { maxLength: 4 }), {
          nil: undefined,
        }),
        (line, column, positions) => {
          const error = errorOf<Error & { line?: number; column?: number }>(
            launch({ ...base, line, column, ...(positions === undefined ? {} : { positions }) }),
          );
          if (error.name === 'TypeError') {
            expect(error.message).toMatch(/@cuda-js\/unplugin/);
            return;
          }
          expect(error.name).toBe('FreeVariableError');
          expect(Number.isSafeInteger(error.line) && error.line! >= 1).toBe(true);
          expect(Number.isSafeInteger(error.column) && error.column! >= 1).toBe(true);
          expect(error.message.length).toBeLessThan(2000);
        },
      ),
      { seed: 31, numRuns: 200 },
    );
  });
});

describe('kernels without the plugin in bundles', () => {
  it('reads the names that scope-hoisting bundlers give cuda and the casts (cuda$1, cuda2, f32$1)', () => {
    expect(['cuda$1', 'cuda2', 'f32$1', 'f322', 'u82', 'cuda', 'x2'].map(bundlerRenamedIntrinsic)).toEqual([
      'cuda',
      'cuda',
      'f32',
      'f32',
      'u8',
      undefined,
      undefined,
    ]);
    const fn = fromText<(a: Float32Array) => void>(
      '(a) => {\n  const i = cuda$1.grid(1);\n  if (i < a.length) a[i] = f32$1(a[i] * 2);\n}',
    );
    const a = new Float32Array([1, 2]);
    jit(fn, { target: 'simulator' }).launch({ grid: 1, block: 2 }, a);
    expect([...a]).toEqual([2, 4]);
  });

  it('gives a minified kernel (cuda renamed to a letter) a RewrittenKernelError that names the plugin', () => {
    const fn = fromText<(a: Float32Array) => void>('t=>{let e=n.grid(1);e<t.length&&(t[e]=2*t[e])}', { n: {} });
    const error = errorOf<unknown>(() => {
      jit(fn, { target: 'simulator' });
    });
    expect(error).toBeInstanceOf(RewrittenKernelError);
    expect((error as Error).message).toMatch(/rewritten by a bundler or minifier.*'n\.grid'.*@cuda-js\/unplugin/s);
  });

  it('explains an error met by a text that minifiers folded (comma sequences)', () => {
    const fn = fromText<(a: Float32Array) => void>('(a)=>{const i=cuda.grid(1);cuda.syncthreads(),a[i]=1}');
    const error = errorOf<unknown>(() => {
      jit(fn, { target: 'simulator' }).launch({ grid: 1, block: 1 }, new Float32Array(1));
    });
    expect(error).toBeInstanceOf(RewrittenKernelError);
    expect((error as Error).message).toMatch(/comma sequence/);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('leaves errors of kernels written by hand as they are', () => {
    expect(() =>
      jit(
        (a: Float32Array) => {
          for (const x of a) a[0] = x;
        },
        { target: 'simulator' },
      ),
    ).toThrow(UnsupportedSyntaxError);
    expect(() =>
      jit(
        (a: Float32Array) => {
          for (const x of a) a[0] = x;
        },
        { target: 'simulator' },
      ),
    ).not.toThrow(RewrittenKernelError);
  });
});
