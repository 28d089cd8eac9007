// Options objects of the JIT's entry points that are no plain objects, or answer twice (hostile input):
// a class instance's, a Map's or an inherited setting is no own key, so it was read unchecked or not at all.
import { describe, expect, it } from 'vitest';
import { JitOptionError } from './errors.js';
import { jit } from './jit.js';
import { deviceArray } from './library/device-arrays.js';
import { reduce } from './library/reduce.js';
import { vectorize } from './library/vectorize.js';

const kernel = (a: Float32Array) => {
  a[0] = 1;
};

class TargetOptions {
  get target(): string {
    return 'banana';
  }
}

describe('options that are no plain object', () => {
  it.each([
    ['a Map', () => new Map([['target', 'simulator']])],
    ['a class instance with a getter', () => new TargetOptions()],
    ['an object that inherits its settings', () => Object.create({ target: 'simulator' })],
    ['a Date', () => new Date()],
  ])('%s is a JitOptionError at every entry point, not settings silently unread or read unchecked', (_what, make) => {
    expect(() => jit(kernel, make() as never)).toThrow(JitOptionError);
    expect(() => jit(kernel, make() as never)).toThrow(/the options must be a plain object/);
    expect(() => vectorize(['float64(float64)'], (x: number) => x, make() as never)).toThrow(JitOptionError);
    expect(() => reduce((a: number, b: number) => a + b, make() as never)).toThrow(JitOptionError);
    expect(() => deviceArray(3, 'float32', make() as never)).toThrow(JitOptionError);
  });

  it('an object without a prototype is plain', () => {
    const options = Object.assign(Object.create(null) as object, { target: 'simulator' as const });
    const a = new Float32Array(1);
    jit(kernel, options).launch({ grid: 1, block: 1 }, a);
    expect(a[0]).toBe(1);
  });
});

describe('options whose getters answer twice', () => {
  it('are read once: the value checked is the value used', () => {
    let reads = 0;
    const options = {
      get target() {
        reads++;
        return reads === 1 ? 'simulator' : 'banana';
      },
    };
    const a = new Float32Array(1);
    const k = jit(kernel, options as never);
    expect(k.target).toBe('simulator');
    k.launch({ grid: 1, block: 1 }, a);
    expect(a[0]).toBe(1);
    expect(reads).toBe(1);
  });

  it('a getter that throws is its own error, thrown by the check, before anything is made', () => {
    const options = {
      get target(): string {
        throw new Error('from the getter');
      },
    };
    expect(() => jit(kernel, options as never)).toThrow('from the getter');
  });
});
