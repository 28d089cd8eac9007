import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';
import { UnknownOptionError } from './errors.js';
import { verifyNvvm } from './nvvm-verify.js';
import { ObjectCode } from './object-code.js';
import { toolchainIdentity } from './toolchain-identity.js';

// The small options objects of @cuda-js/program refuse a misspelt key with the
// nearest known name, as an UnknownOptionError, before any library is loaded.
// Program, Linker, compile, link and CompileCache options have their own tests
// (program-options, linker-options, compile-cache, linker).
const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  ['ObjectCode', () => ObjectCode.fromPtxText('.version 8.0', { nmae: 'k' } as never), 'nmae', 'name'],
  ['ObjectCode', () => ObjectCode.fromCubin(new Uint8Array(4), { producr: undefined } as never), 'producr', 'producer'],
  ['CompileCache.clear', () => new CompileCache().clear({ dsk: false } as never), 'dsk', 'disk'],
  ['toolchainIdentity', () => toolchainIdentity({ linkr: true } as never), 'linkr', 'linker'],
  ['verifyNvvm', () => verifyNvvm('x', { arc: 'sm_90' } as never), 'arc', 'arch'],
];

describe('the small options of program', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    const error = errorOf<UnknownOptionError>(call);
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect(error).toMatchObject({ where, suggestion });
    expect(error.message).toContain(`unknown ${where} option '${key}' (did you mean '${suggestion}'?)`);
  });
});
