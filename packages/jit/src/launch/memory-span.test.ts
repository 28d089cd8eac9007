import { describe, expect, it } from 'vitest';
import { memorySpan } from './memory-span.js';

describe('memorySpan', () => {
  it('covers a compact array exactly', () => {
    expect(memorySpan([4, 6], [6, 1], 8)).toEqual({ first: 0, bytes: 192 });
    expect(memorySpan([4, 6], [1, 4], 4)).toEqual({ first: 0, bytes: 96 });
    expect(memorySpan([5], [1], 1)).toEqual({ first: 0, bytes: 5 });
  });

  it('covers a strided array from its first to its last element, gaps included', () => {
    // every other column of a 4x6 row-major array: elements 0..22
    expect(memorySpan([4, 3], [6, 2], 4)).toEqual({ first: 0, bytes: 23 * 4 });
    // one column
    expect(memorySpan([4], [6], 4)).toEqual({ first: 0, bytes: 19 * 4 });
  });

  it('starts below element 0 for negative strides', () => {
    expect(memorySpan([5], [-1], 4)).toEqual({ first: -4, bytes: 20 });
    expect(memorySpan([3, 4], [-4, 1], 2)).toEqual({ first: -8, bytes: 24 });
  });

  it('is empty when an extent is 0, and one element for a 0-d array', () => {
    expect(memorySpan([3, 0], [0, 1], 4)).toEqual({ first: 0, bytes: 0 });
    expect(memorySpan([], [], 8)).toEqual({ first: 0, bytes: 8 });
  });
});
