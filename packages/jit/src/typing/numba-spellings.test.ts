// A kernel ported from numba with numba's spellings gets errors that name
// the cuda-js forms, at the user's line; an unsupported call is named.
import { describe, expect, test } from 'vitest';
import { cuda } from '../cuda.js';
import { JitError } from '../errors.js';
import { jit } from '../jit.js';

declare const len: (x: ArrayLike<unknown>) => number;

function messageOf(fn: (...args: never[]) => unknown): string {
  try {
    jit(fn, { target: 'simulator' }).launch({ grid: 1, block: 1 }, new Int32Array(4));
  } catch (e) {
    if (e instanceof JitError) return e.detail;
    throw e;
  }
  throw new Error('the kernel was accepted');
}

describe("numba's spellings in errors", () => {
  test('cuda.cg.this_grid, cuda.const.array_like, cuda.atomic.and_, cuda.atomic.compare_and_swap, cuda.to_device', () => {
    expect(
      messageOf((x: Int32Array) => {
        // @ts-expect-error: numba's spelling, on purpose
        const g = cuda.cg.this_grid();
        x[0] = g as number;
      }),
    ).toBe("cuda.cg.this_grid() is not an intrinsic kernels have (numba's spelling; in cuda-js: cuda.cg.thisGrid())");
    expect(
      messageOf((x: Int32Array) => {
        // @ts-expect-error: numba's spelling, on purpose
        cuda.atomic.and_(x, 0, 1);
      }),
    ).toBe(
      "cuda.atomic.and_() is not an intrinsic kernels have (numba's spelling; in cuda-js: cuda.atomic.and(array, index, value))",
    );
    expect(
      messageOf((x: Int32Array) => {
        // @ts-expect-error: numba's spelling, on purpose
        cuda.atomic.compare_and_swap(x, 0, 1);
      }),
    ).toContain('in cuda-js: cuda.atomic.cas(array, 0, expected, value)');
    expect(
      messageOf((x: Int32Array) => {
        // @ts-expect-error: numba's spelling, on purpose
        const t = cuda.const.array_like(x);
        x[0] = t as number;
      }),
    ).toContain('in cuda-js: cuda.const.arrayLike(HOST_ARRAY)');
    expect(
      messageOf((x: Int32Array) => {
        // @ts-expect-error: numba's spelling, on purpose
        cuda.to_device(x);
      }),
    ).toContain(
      "cuda.to_device() is not an intrinsic kernels have (numba's spelling; in cuda-js: a host array passed to the kernel",
    );
  });

  test('len(x) names x.length; an unsupported call names the call', () => {
    expect(
      messageOf((x: Int32Array) => {
        x[0] = len(x);
      }),
    ).toBe(
      "'len' is not a function kernels can call (device functions come with jit.device, named in the constants) (numba's len(...); in cuda-js: x.length (1-D) or x.shape[k])",
    );
    expect(
      messageOf((x: Int32Array) => {
        x[0] = (x as unknown as { at(i: number): number }).at(0);
      }),
    ).toMatch(/^arrays in kernels have .*'at' is not supported$/);
    expect(
      messageOf((x: Int32Array) => {
        x[0] = Object.keys(x).length;
      }),
    ).toBe('the call Object.keys(...) is not supported in kernels');
  });
});
