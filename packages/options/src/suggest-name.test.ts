import { describe, expect, it } from 'vitest';
import { editDistance, suggestName } from './suggest-name.js';

describe('editDistance', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('cahce', 'cache')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
});

describe('suggestName', () => {
  it('ignores case, _ and -, and refuses a name that is too far', () => {
    expect(suggestName('FAST-MATH', ['fastMath', 'cache'])).toBe('fastMath');
    expect(suggestName('swizle', ['swizzle', 'interleave'])).toBe('swizzle');
    expect(suggestName('zz', ['fastMath', 'cache'])).toBeUndefined();
  });
  it('prefers an alias when it names a known option', () => {
    expect(suggestName('rdc', ['relocatableDeviceCode'], { rdc: 'relocatableDeviceCode' })).toBe(
      'relocatableDeviceCode',
    );
    expect(suggestName('rdc', ['cache'], { rdc: 'relocatableDeviceCode' })).toBeUndefined();
  });
});
