import * as jit from '@cuda-js/jit';
import * as internals from '@cuda-js/jit/internals';
import { describe, expect, it } from 'vitest';

describe('@cuda-js/jit/internals', () => {
  it('holds the typed IR tables, which the main entry does not export', () => {
    expect(Object.keys(internals).sort()).toEqual(['ATOMIC_TYPES', 'MATH_FUNCTIONS', 'SHUFFLE_TYPES']);
    expect(internals.MATH_FUNCTIONS.sqrt).toEqual({ arity: 1, int: false });
    for (const name of Object.keys(internals)) expect(name in jit).toBe(false);
  });
});
