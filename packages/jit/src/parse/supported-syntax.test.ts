import { describe, expect, it } from 'vitest';
import { UnsupportedSyntaxError } from '../errors.js';
import { parseKernel } from './parse-kernel.js';

declare const cuda: {
  shared: { array(shape: number | number[], dtype: unknown): number[] };
  local: { array(shape: number | number[], dtype: unknown): number[] };
  atomic: { add(a: unknown, index: number | number[], v: number): number };
};
declare const ns: { cuda: typeof cuda };
declare const f32: unknown;

const parse = (fn: (...args: never[]) => unknown) => parseKernel(fn, undefined);

describe('checkSyntax: array literals', () => {
  it('are accepted as the shape of shared and local arrays and as the index of atomics', () => {
    expect(() =>
      parse((a: number[]) => {
        const s = cuda.shared.array([16, 16], f32);
        const l = ns.cuda.local.array([2, 2, 2], f32);
        cuda.atomic.add(a, [1, 2], s[0]! + l[0]!);
      }),
    ).not.toThrow();
  });

  it('are refused anywhere else, with holes, spreads or nested array literals', () => {
    const refused = [
      () => {
        const v = [1, 2];
        return v;
      },
      (a: number[]) => cuda.atomic.add(a, 0, [1] as unknown as number),
      // biome-ignore lint/suspicious/noSparseArray: a hole, refused
      () => cuda.shared.array([16, , 2] as number[], f32),
      () => cuda.shared.array([...[16]], f32),
      () => cuda.shared.array([[16]] as unknown as number[], f32),
      () => ({ x: cuda.local.array(2, f32) }),
    ];
    for (const fn of refused) expect(() => parse(fn), fn.toString()).toThrow(UnsupportedSyntaxError);
    // biome-ignore lint/suspicious/noSparseArray: a hole, refused
    const holes = () => cuda.shared.array([16, , 2] as number[], f32);
    expect(() => parse(holes)).toThrow(/an array literal with holes is not supported in kernels/);
    expect(() => parse(() => cuda.shared.array([...[16]], f32))).toThrow(
      /spread arguments is not supported in kernels/,
    );
  });
});
