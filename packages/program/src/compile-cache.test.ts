import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CacheEntry } from './cache-entry.js';
import { cacheKey } from './cache-key.js';
import { CompileCache } from './compile-cache.js';
import { InvalidOptionError, UnknownOptionError } from './errors.js';

const root = mkdtempSync(join(tmpdir(), 'program-compile-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const entry = (text: string): CacheEntry => ({
  codeType: 'ptx',
  name: 'p',
  code: new TextEncoder().encode(text),
  symbolMapping: { 'k<int>': '_Z1kIiEvv' },
});

describe('CompileCache', () => {
  it('counts misses, writes and memory hits', () => {
    const cache = new CompileCache();
    const key = cacheKey('one');
    expect(cache.get(key)).toBeUndefined();
    cache.set(key, entry('.version 7.8'));
    expect(cache.get(key)).toEqual(entry('.version 7.8'));
    expect(cache.get(key)).toEqual(entry('.version 7.8'));
    expect(cache.stats()).toMatchObject({
      hits: 2,
      memoryHits: 2,
      diskHits: 0,
      misses: 1,
      writes: 1,
      diskErrors: 0,
      memoryEntries: 1,
    });
    expect(cache.directory).toBeUndefined();
    cache.resetStats();
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 0, writes: 0, memoryEntries: 1 });
  });

  it('hands out copies, so a caller cannot spoil an entry', () => {
    const cache = new CompileCache();
    const key = cacheKey('copy');
    const original = entry('abc');
    cache.set(key, original);
    original.code[0] = 0;
    const first = cache.get(key)!;
    first.code[1] = 0;
    expect(new TextDecoder().decode(cache.get(key)!.code)).toBe('abc');
  });

  it('finds on disk what another cache (another process) stored', async () => {
    const directory = join(root, 'shared');
    const writer = new CompileCache({ directory });
    const key = cacheKey('shared');
    await writer.setAsync(key, entry('from disk'));
    const reader = new CompileCache({ directory });
    expect(reader.get(key)).toEqual(entry('from disk'));
    expect(await reader.getAsync(key)).toEqual(entry('from disk'));
    expect(reader.stats()).toMatchObject({ hits: 2, diskHits: 1, memoryHits: 1, misses: 0 });
    expect(reader.diskUsage().entries).toBe(1);
    reader.clear({ disk: false });
    expect(reader.diskUsage().entries).toBe(1);
    reader.clear();
    expect(reader.diskUsage().entries).toBe(0);
    expect(new CompileCache({ directory }).get(key)).toBeUndefined();
  });

  it('forgets the least recently used entries beyond its limit', () => {
    const cache = new CompileCache({ maxMemoryEntries: 2 });
    const [a, b, c] = ['a', 'b', 'c'].map((k) => cacheKey(k));
    cache.set(a!, entry('a'));
    cache.set(b!, entry('b'));
    cache.get(a!);
    cache.set(c!, entry('c'));
    expect(cache.get(b!)).toBeUndefined();
    expect(cache.get(a!)).toBeDefined();
    expect(cache.stats().memoryEntries).toBe(2);
  });

  it('keeps working in memory when its folder is unusable, and says so once', async () => {
    const notAFolder = join(root, 'file');
    writeFileSync(notAFolder, 'x');
    const warnings: Error[] = [];
    const listener = (w: Error): void => void warnings.push(w);
    process.on('warning', listener);
    try {
      const cache = new CompileCache({ directory: join(notAFolder, 'cache') });
      const key = cacheKey('unusable');
      cache.set(key, entry('x'));
      cache.set(cacheKey('unusable 2'), entry('y'));
      expect(cache.get(key)).toEqual(entry('x'));
      expect(cache.stats().diskErrors).toBe(2);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).toEqual(['CudaCacheWarning']);
    } finally {
      process.off('warning', listener);
    }
  });

  it('names bad options and bad keys', () => {
    expect(() => new CompileCache({ dir: '/tmp' } as never)).toThrow(UnknownOptionError);
    expect(() => new CompileCache({ maxMemoryEntries: 0 })).toThrow(InvalidOptionError);
    expect(() => new CompileCache().get('not a key')).toThrow(InvalidOptionError);
    expect(() => new CompileCache().pruneDisk(-1)).toThrow(InvalidOptionError);
  });

  it('puts its default folder under CUDA_JS_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(CompileCache.defaultDirectory({ CUDA_JS_CACHE_DIR: '/x/y' })).toBe('/x/y');
    expect(CompileCache.defaultDirectory({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/cuda-js/program');
    expect(CompileCache.defaultDirectory({})).toMatch(/\.cache\/cuda-js\/program$/);
  });
});
