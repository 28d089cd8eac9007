import { describe, expect, it } from 'vitest';
import { formatValue, withArticle } from './format-value.js';

class Matrix {}

describe('formatValue', () => {
  it('names an object by what it is, never as [object Object]', () => {
    expect(formatValue({ not: 'an array', shape: [2] })).toBe('an object { not, shape }');
    expect(formatValue({ a: 1, b: 2, c: 3, d: 4, e: 5 })).toBe('an object { a, b, c, d, ... }');
    expect(formatValue({})).toBe('an empty object');
    expect(formatValue(Object.create(null))).toBe('an empty object with no prototype');
    expect(formatValue({ 'two words': 1 })).toBe("an object { 'two words' }");
    expect(formatValue(new Matrix())).toBe('an instance of Matrix');
    expect(formatValue(new Float32Array(2))).toBe('a Float32Array');
    expect(formatValue(new Int32Array(2))).toBe('an Int32Array');
    expect(formatValue(new Uint8Array(2))).toBe('a Uint8Array');
    expect(formatValue(new ArrayBuffer(2))).toBe('an ArrayBuffer');
    expect(formatValue(new Map())).toBe('a Map');
  });

  it('never throws, nor runs the object’s own toString', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(formatValue(hostile)).toBe('an object');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(formatValue(proxy)).toBe('a revoked proxy');
    expect(formatValue({ toString: () => 'lies', [Symbol.toStringTag]: 'Lies' })).toBe('a Lies');
  });

  it('puts the article a reader says', () => {
    expect(
      ['Apache Arrow vector', 'scijs ndarray', 'Int8Array', 'Uint16Array', 'ArrayBuffer', 'stdlib ndarray'].map(
        withArticle,
      ),
    ).toEqual([
      'an Apache Arrow vector',
      'a scijs ndarray',
      'an Int8Array',
      'a Uint16Array',
      'an ArrayBuffer',
      'a stdlib ndarray',
    ]);
  });
});
