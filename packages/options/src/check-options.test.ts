import { describe, expect, it } from 'vitest';
import { checkOptions, type OptionProblem, type OptionTableOf } from './index.js';
import { isBoolean, isIntegerIn, isOneOf } from './value-checks.js';

class TestOptionError extends Error {
  constructor(readonly problem: OptionProblem) {
    super(problem.message);
  }
}
const fail = (problem: OptionProblem): Error => new TestOptionError(problem);

function problemOf(run: () => unknown): OptionProblem {
  try {
    run();
  } catch (e) {
    if (e instanceof TestOptionError) return e.problem;
    throw e;
  }
  throw new Error('expected the options to be refused');
}

const table = {
  fastMath: isBoolean,
  cache: isBoolean,
  maxRegisters: isIntegerIn(1, 255),
  name: { check: isOneOf(['a', 'b']), appliesTo: ['nvvm'] as const },
};

describe('checkOptions', () => {
  it('accepts known keys with acceptable values, undefined entries and absent options, and returns the same object', () => {
    const options = { fastMath: true, cache: undefined, maxRegisters: 32 };
    expect(checkOptions(options, table, { where: 'jit()', fail })).toBe(options);
    expect(checkOptions(undefined, table, { where: 'jit()', fail })).toEqual({});
    expect(checkOptions(null, table, { where: 'jit()', fail, nullIsAbsent: true })).toEqual({});
    expect(problemOf(() => checkOptions(null, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'not-an-object',
      message: 'jit(): the options must be an object; got null',
    });
  });

  it.each([
    ['fastmath', 'fastMath'],
    ['fast_math', 'fastMath'],
    ['cahce', 'cache'],
    ['maxRegister', 'maxRegisters'],
    ['nmae', 'name'],
  ])('refuses the unknown key %s and suggests %s', (key, suggestion) => {
    const p = problemOf(() => checkOptions({ [key]: 1 }, table, { where: 'jit()', fail }));
    expect(p).toMatchObject({ kind: 'unknown', where: 'jit()', key, suggestion, known: Object.keys(table) });
    expect(p.message).toBe(
      `jit(): unknown option '${key}' (did you mean '${suggestion}'?); known options: fastMath, cache, maxRegisters, name`,
    );
  });

  it('suggests nothing for a key far from every known one, and uses aliases of other libraries', () => {
    expect(problemOf(() => checkOptions({ blocksize: 1 }, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'unknown',
      suggestion: undefined,
    });
    const aliased = problemOf(() =>
      checkOptions({ use_fast: 1 }, table, { where: 'jit()', fail, aliases: { use_fast: 'fastMath' } }),
    );
    expect(aliased).toMatchObject({ kind: 'unknown', suggestion: 'fastMath' });
  });

  it('refuses values of the wrong type with what is expected', () => {
    expect(problemOf(() => checkOptions({ fastMath: 'no' }, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'invalid',
      key: 'fastMath',
      value: 'no',
      expected: 'true or false',
      message: `jit(): option 'fastMath' must be true or false; got "no"`,
    });
    expect(problemOf(() => checkOptions({ maxRegisters: 300 }, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'invalid',
      expected: 'an integer from 1 to 255',
    });
  });

  it('refuses a non-object, and class instances when asked for plain objects only', () => {
    expect(problemOf(() => checkOptions(3, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'not-an-object',
      value: 3,
    });
    expect(problemOf(() => checkOptions([], table, { where: 'jit()', fail }))).toMatchObject({ kind: 'not-an-object' });
    class Options {
      cache = true;
    }
    expect(
      problemOf(() => checkOptions(new Options(), table, { where: 'jit()', fail, plainOnly: true })),
    ).toMatchObject({
      kind: 'not-an-object',
      message: 'jit(): the options must be a plain object; got a Options',
    });
    expect(checkOptions(new Options(), table, { where: 'jit()', fail })).toBeInstanceOf(Options);
  });

  it('refuses a rule outside its contexts with why', () => {
    const settings = { where: 'Program', fail, context: { id: 'c++', name: 'C++ (NVRTC)' } };
    expect(problemOf(() => checkOptions({ name: 'a' }, table, settings))).toMatchObject({
      kind: 'unsupported',
      key: 'name',
      context: 'C++ (NVRTC)',
      reason: 'it applies only to nvvm',
    });
    expect(checkOptions({ name: 'a' }, table, { ...settings, context: { id: 'nvvm', name: 'NVVM' } })).toEqual({
      name: 'a',
    });
  });

  it('with snapshot, gives a new object of the values it read, each key read once', () => {
    let reads = 0;
    const options = {
      get maxRegisters() {
        reads++;
        return reads === 1 ? 32 : 'lots';
      },
      cache: undefined,
    };
    const snapshot = checkOptions(options, table, { where: 'jit()', fail, snapshot: true });
    expect(reads).toBe(1);
    expect(snapshot === (options as object)).toBe(false);
    expect(snapshot).toEqual({ maxRegisters: 32 });
    expect(Object.getOwnPropertyDescriptor(snapshot, 'maxRegisters')).toMatchObject({ value: 32 });
  });

  it('does not take a key from the prototype chain as known', () => {
    expect(problemOf(() => checkOptions({ toString: 1 }, table, { where: 'jit()', fail }))).toMatchObject({
      kind: 'unknown',
      key: 'toString',
    });
  });
});

describe('OptionTableOf', () => {
  interface Settings {
    readonly fast?: boolean | undefined;
    readonly level?: number | undefined;
  }

  it('takes a table of exactly the keys of the options interface (checked by tsc)', () => {
    const table = { fast: isBoolean, level: isIntegerIn(0, 3) } satisfies OptionTableOf<Settings>;
    // @ts-expect-error a key of the interface without its row
    const missing = { fast: isBoolean } satisfies OptionTableOf<Settings>;
    // @ts-expect-error a row without a key of the interface
    const extra = { fast: isBoolean, level: isBoolean, speed: isBoolean } satisfies OptionTableOf<Settings>;
    expect(checkOptions<Settings>({ level: 2 }, table, { where: 'settings', fail })).toEqual({ level: 2 });
    expect(Object.keys(missing)).toEqual(['fast']);
    expect(Object.keys(extra)).toHaveLength(3);
  });
});
