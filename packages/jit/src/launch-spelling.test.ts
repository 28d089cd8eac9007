import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, test } from 'vitest';
import { cuda } from './cuda.js';
import { JitError } from './errors.js';
import { jit } from './jit.js';

const k = jit(
  (x: Float32Array) => {
    const i = cuda.grid(1);
    if (i < x.length) x[i] = 1;
  },
  { target: 'simulator' },
);

/** What JavaScript's comma expression `(a, b, c)` gives, as a property key. */
const comma = (...operands: unknown[]): string => String(operands[operands.length - 1]);

describe("numba's k[grid, block](...) in JavaScript", () => {
  test('k[grid, block], k[grid, [x, y]] and k[grid, block, stream] are a JitError naming kernel.launch', () => {
    const grid = 4;
    const block = 256;
    const stream = {};
    const x = new Float32Array(8);
    // k[grid, block](x): the key is the comma expression's last operand (TypeScript refuses the spelling itself)
    const one = errorOf(() => (k as unknown as Record<string, (a: Float32Array) => void>)[comma(grid, block)]!(x));
    expect(one).toBeInstanceOf(JitError);
    expect(one.message).toMatch(
      /^kernel\[256\] is numba's launch spelling k\[grid, block\]\(\.\.\.args\).*write kernel\.launch\(\{ grid, block \}, \.\.\.args\)/,
    );
    expect(errorOf(() => (k as unknown as Record<string, unknown>)[comma(grid, [16, 16])]).message).toMatch(
      /^kernel\[16,16\] is numba's launch spelling/,
    );
    expect(errorOf(() => (k as unknown as Record<string, unknown>)[comma(grid, block, stream)]).message).toMatch(
      /^kernel\[\[object Object\]\] is numba's launch spelling/,
    );
  });

  test('members, missing names, symbols and awaiting are as before', () => {
    expect(typeof k.launch).toBe('function');
    const loose = k as unknown as Record<PropertyKey, unknown>;
    expect(loose.then).toBeUndefined();
    expect(loose.nothing).toBeUndefined();
    expect(loose[Symbol.iterator]).toBeUndefined();
    expect('256' in k).toBe(false);
    loose.extra = 1;
    expect(loose.extra).toBe(1);
  });
});
