// Options objects of @cuda-js/program that are no plain objects, or answer twice (hostile input):
// a class instance's, a Map's or an inherited setting is no own key, so it was read unchecked or
// not at all; a getter could answer the check with one value and the use with another. Each
// entry point here checks its options before any library is loaded.
import { answersTwice, countingProxy, nonPlainOptions } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';
import { InvalidOptionError } from './errors.js';
import { Linker } from './linker.js';
import { verifyNvvm } from './nvvm-verify.js';
import { ObjectCode } from './object-code.js';
import { Program } from './program.js';
import { toolchainIdentity } from './toolchain-identity.js';

const ptx = () => ObjectCode.fromPtxText('.version 8.0');

describe('options that are no plain object', () => {
  it.each(nonPlainOptions({ name: 'k' }))('%s is an InvalidOptionError at every entry point', (_what, make) => {
    expect(() => ObjectCode.fromPtxText('.version 8.0', make() as never)).toThrow(InvalidOptionError);
    expect(() => ObjectCode.fromPtxText('.version 8.0', make() as never)).toThrow(/a plain object/);
    expect(() => ObjectCode.fromCubin(new Uint8Array(4), make() as never)).toThrow(InvalidOptionError);
    expect(() => new CompileCache().clear(make() as never)).toThrow(InvalidOptionError);
    expect(() => toolchainIdentity(make() as never)).toThrow(InvalidOptionError);
    expect(() => verifyNvvm('x', make() as never)).toThrow(InvalidOptionError);
    expect(() => new Program('__global__ void k() {}', 'c++', make() as never)).toThrow(InvalidOptionError);
    expect(() => new Linker([ptx()], make() as never)).toThrow(InvalidOptionError);
    expect(() => new CompileCache(make() as never)).toThrow(InvalidOptionError);
  });
});

describe('options whose getters answer twice are read once: the value checked is the value used', () => {
  it('ObjectCode', () => {
    const { options, reads } = answersTwice('name', 'kernels', 5);
    expect(ObjectCode.fromPtxText('.version 8.0', options as never).name).toBe('kernels');
    expect(reads()).toBe(1);
  });

  it('Program', () => {
    const { options, reads } = answersTwice('name', 'k.cu', 5);
    expect(new Program('__global__ void k() {}', 'c++', options as never).options.name).toBe('k.cu');
    expect(reads()).toBe(1);
  });

  it('Linker', () => {
    const { options, reads } = answersTwice('name', 'linked.cubin', 5);
    new Linker([ptx()], options as never);
    expect(reads()).toBe(1);
  });
});

describe("a Proxy's get trap runs once per key", () => {
  it.each([
    [
      'ObjectCode',
      (options: object) => ObjectCode.fromPtxText('.version 8.0', options as never),
      { name: 'k', symbolMapping: { k: 'k' } },
    ],
    [
      'Program',
      (options: object) => new Program('__global__ void k() {}', 'c++', options as never),
      { name: 'k.cu', arch: 'sm_90', fastMath: true },
    ],
    ['CompileCache', (options: object) => new CompileCache(options as never), { maxMemoryEntries: 4 }],
  ] as const)('%s', (_where, call, settings) => {
    const { proxy, gets } = countingProxy({ ...settings });
    call(proxy);
    expect(Object.fromEntries(gets)).toEqual(Object.fromEntries(Object.keys(settings).map((key) => [key, 1])));
  });
});
