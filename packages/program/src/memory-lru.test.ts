import { describe, expect, it } from 'vitest';
import { MemoryLru } from './memory-lru.js';

const lengthOf = (s: string): number => s.length;

describe('MemoryLru', () => {
  it('evicts the least recently used entry past the entry bound, a get counting as a use', () => {
    const lru = new MemoryLru<string>(2, 100, lengthOf);
    lru.set('a', 'x');
    lru.set('b', 'y');
    expect(lru.get('a')).toBe('x');
    lru.set('c', 'z');
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('x');
    expect(lru.get('c')).toBe('z');
    expect(lru.size).toBe(2);
  });

  it('evicts by size, keeps its size sum, and refuses a value larger than the whole bound', () => {
    const lru = new MemoryLru<string>(10, 5, lengthOf);
    lru.set('a', 'xx');
    lru.set('b', 'yyy');
    expect(lru.calculatedSize).toBe(5);
    lru.set('c', 'z');
    expect(lru.get('a')).toBeUndefined();
    expect(lru.calculatedSize).toBe(4);
    lru.set('d', 'toolong');
    expect(lru.get('d')).toBeUndefined();
    expect(lru.calculatedSize).toBe(4);
  });

  it('replaces a key in place of its old size, and forgets on delete and clear', () => {
    const lru = new MemoryLru<string>(10, 100, lengthOf);
    lru.set('a', 'xxxx');
    lru.set('a', 'y');
    expect(lru.calculatedSize).toBe(1);
    expect(lru.size).toBe(1);
    lru.set('b', 'zz');
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
    expect(lru.calculatedSize).toBe(2);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.calculatedSize).toBe(0);
  });
});
