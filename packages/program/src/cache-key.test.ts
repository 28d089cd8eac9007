import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheKey } from './cache-key.js';

describe('cacheKey', () => {
  it('is a SHA-256 hex digest, the same for the same parts', () => {
    const k = cacheKey({ code: 'x', flags: ['-a', '-b'] });
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ code: 'x', flags: ['-a', '-b'] })).toBe(k);
  });

  it('ignores object key order and undefined entries', () => {
    expect(cacheKey({ a: 1, b: 'two' })).toBe(cacheKey({ b: 'two', a: 1 }));
    expect(cacheKey({ a: 1, b: undefined })).toBe(cacheKey({ a: 1 }));
  });

  it('tells apart parts that would read alike as text', () => {
    const keys = [
      cacheKey(['ab']),
      cacheKey(['a', 'b']),
      cacheKey('ab'),
      cacheKey(new TextEncoder().encode('ab')),
      cacheKey({ ab: null }),
      cacheKey([1]),
      cacheKey(['1']),
      cacheKey([true]),
      cacheKey(['a', ['b']]),
      cacheKey([['a'], 'b']),
      cacheKey({ flags: ['-a', '-b'] }),
      cacheKey({ flags: ['-a -b'] }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('hashes bytes by content', () => {
    expect(cacheKey(new Uint8Array([1, 2, 3]))).toBe(cacheKey(Uint8Array.from([1, 2, 3])));
    expect(cacheKey(new Uint8Array([1, 2, 3]))).not.toBe(cacheKey(new Uint8Array([1, 2, 4])));
  });

  it('hashes the byte stream of one update per piece, lone surrogates as each piece alone encodes them (keys of earlier entries stay)', () => {
    const text = 'é\uD800';
    const pieces: (string | Uint8Array)[] = [
      'o2:',
      's1:',
      'a',
      `s${Buffer.byteLength(text)}:`,
      text,
      's1:',
      'b',
      'a2:',
      'd1;',
      'b1:',
      new Uint8Array([7]),
    ];
    const expected = createHash('sha256');
    for (const piece of pieces) expected.update(piece);
    expect(cacheKey({ b: [1, new Uint8Array([7])], a: text })).toBe(expected.digest('hex'));
  });
});
