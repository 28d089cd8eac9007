// Every options object of the JIT goes through the stack's options checker:
// an unknown key is a JitOptionError naming the nearest known key, a value of
// the wrong type one saying what is expected. All checked before parsing or
// compiling, so no GPU is needed.
import { describe, expect, it } from 'vitest';
import { createXoroshiro128pStates, declareDevice, JitError, JitOptionError, jit, reduce, vectorize } from './index.js';

const kernel = (a: Float32Array) => {
  a[0] = 1;
};
const add = (a: number, b: number) => a + b;

function optionError(make: () => unknown): JitOptionError {
  try {
    make();
  } catch (e) {
    if (e instanceof JitOptionError) return e;
    throw e;
  }
  throw new Error('expected a JitOptionError');
}

describe('the JIT refuses unknown options with a suggestion', () => {
  it.each([
    [{ fastmath: true }, 'fastmath', 'fastMath'],
    [{ cahce: true }, 'cahce', 'cache'],
    [{ targte: 'simulator' }, 'targte', 'target'],
    [{ constant: { N: 1 } }, 'constant', 'constants'],
  ])('jit(fn, %j)', (options, key, suggestion) => {
    const e = optionError(() => jit(kernel, options as never));
    expect(e).toBeInstanceOf(JitError);
    expect(e.problem).toMatchObject({ kind: 'unknown', key, suggestion });
    expect(e.message).toBe(
      `jit(): unknown option '${key}' (did you mean '${suggestion}'?); known options: target, constants, name, arch, fma, fastMath, cache, simulatorBudget, signatures`,
    );
  });

  it('jit(fn, { fma: "no", cache: "yes" }) is refused by type, naming what is expected', () => {
    expect(optionError(() => jit(kernel, { fma: 'no', cache: 'yes' } as never)).message).toBe(
      `jit(): option 'fma' must be true or false; got "no"`,
    );
    expect(optionError(() => jit(kernel, { cache: 'yes' } as never)).message).toBe(
      `jit(): option 'cache' must be true or false; got "yes"`,
    );
    expect(optionError(() => jit(kernel, { target: 'cpu' } as never)).problem).toMatchObject({
      kind: 'invalid',
      key: 'target',
      expected: 'one of "gpu", "simulator"',
    });
  });

  it('refuses a wrong name, target or options object as a JitOptionError too, as it does fma (not a TypeError)', () => {
    expect(optionError(() => jit(kernel, { name: 5 } as never)).message).toBe(
      "jit(): option 'name' must be a string; got 5",
    );
    expect(optionError(() => jit(kernel, { target: 1 } as never)).problem).toMatchObject({
      kind: 'invalid',
      key: 'target',
    });
    expect(optionError(() => jit(kernel, null as never)).problem).toMatchObject({ kind: 'not-an-object' });
    expect(optionError(() => jit(kernel, 'simulator' as never)).problem).toMatchObject({ kind: 'not-an-object' });
  });

  it('accepts every known option', () => {
    const k = jit(kernel, {
      target: 'simulator',
      constants: {},
      name: 'k',
      arch: 'sm_90',
      fma: false,
      fastMath: true,
      cache: false,
    });
    expect(k.name).toBe('k');
  });

  it('jit.device(fn, { nmae })', () => {
    const e = optionError(() => jit.device(add, { nmae: 'plus' } as never));
    expect(e.message).toBe(
      "jit.device(): unknown option 'nmae' (did you mean 'name'?); known options: constants, name, returns",
    );
    expect(optionError(() => jit.device(add, { name: 3 } as never)).problem).toMatchObject({
      kind: 'invalid',
      key: 'name',
      expected: 'a string',
    });
  });

  it('vectorize(fn, { fastmath }) and vectorize(signatures, fn, { targte })', () => {
    expect(optionError(() => vectorize(add, { fastmath: true } as never)).message).toMatch(
      /^vectorize\(\): unknown option 'fastmath' \(did you mean 'fastMath'\?\)/,
    );
    expect(optionError(() => vectorize(['f32(f32, f32)'], add, { targte: 'simulator' } as never)).message).toMatch(
      /^vectorize\(\): unknown option 'targte' \(did you mean 'target'\?\)/,
    );
  });

  it('reduce(fn, { nam }) and the reducer call { strem }', () => {
    expect(optionError(() => reduce(add, { nam: 'sum' } as never)).message).toMatch(
      /^reduce\(\): unknown option 'nam' \(did you mean 'name'\?\); known options: target, name$/,
    );
    const sum = reduce(add, { target: 'simulator', name: 'sum' });
    expect(optionError(() => sum(new Float32Array(4), { strem: 0n } as never)).message).toMatch(
      /^sum\(\): unknown option 'strem' \(did you mean 'stream'\?\); known options: init, stream, size, res$/,
    );
  });

  it('declareDevice(symbol, signature, { simulte }) and createXoroshiro128pStates(n, seed, { subsequencestart })', () => {
    expect(
      optionError(() =>
        declareDevice('twice', { args: ['f32'], returns: 'f32' }, { simulte: (x: number) => 2 * x } as never),
      ).message,
    ).toMatch(
      /^declareDevice\(\): unknown option 'simulte' \(did you mean 'simulate'\?\); known options: link, simulate$/,
    );
    expect(
      optionError(() => declareDevice('twice', { args: ['f32'], returns: 'f32' }, { simulate: 2 } as never)).problem,
    ).toMatchObject({ kind: 'invalid', expected: 'a function' });
    expect(optionError(() => createXoroshiro128pStates(4, 1, { subsequencestart: 2 } as never)).message).toMatch(
      /unknown option 'subsequencestart' \(did you mean 'subsequenceStart'\?\)/,
    );
  });
});
