// Which spellings of CUDA_JS_JIT_CACHE turn the disk cache on (issue 20: `false` turned it on).
import { describe, expect, it } from 'vitest';
import { JIT_CACHE_VARIABLE, wantsCache } from './jit-cache.js';

describe('wantsCache', () => {
  it('reads the environment only where the kernel does not say, and takes every usual spelling of off', () => {
    const env = (value: string | undefined) => (value === undefined ? {} : { [JIT_CACHE_VARIABLE]: value });
    for (const off of [undefined, '', '0', 'false', 'FALSE', 'off', 'no', ' false '])
      expect(wantsCache(undefined, env(off)), String(off)).toBe(false);
    for (const on of ['1', 'true', 'on', 'yes']) expect(wantsCache(undefined, env(on)), on).toBe(true);
    expect(wantsCache(false, env('1'))).toBe(false);
    expect(wantsCache(true, env('false'))).toBe(true);
  });
});
