import { bool, f32, f64, i32, i64 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { device } from '../device-function.js';
import { KernelTypeError } from '../errors.js';
import { declareDevice } from '../external-device-function.js';
import { array } from './signature.js';
import { MarkedLines, nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);
const f32x1 = array('f32', 1);
const f32x2 = array('f32', 2);
const f64x1 = array('f64', 1);

// Kernels call linked code through their constants; in TypeScript the declaration is not callable, so the kernels cast it.
type Fn<A extends unknown[], R> = (...args: A) => R;
const link = { cuda: 'extern "C" __device__ float mul_f32(float a, float b) { return a * b; }' };
const mulDecl = declareDevice(
  'mul_f32',
  { args: [f32, f32], returns: f32 },
  { link, simulate: (a: number, b: number) => Math.fround(a * b) },
);
const mul = mulDecl as unknown as Fn<[number, number], number>;
const sumDecl = declareDevice('sum_f32', { args: [array(f32, 1), i32], returns: f64 });
const sum = sumDecl as unknown as Fn<[ArrayLike<number>, number], number>;
const isBigDecl = declareDevice('is_big', { args: [i64], returns: bool });
const isBig = isBigDecl as unknown as Fn<[bigint], boolean>;
// a second declaration of mul_f32 with the same signature, and one with another
const againDecl = declareDevice('mul_f32', { args: [f32, f32], returns: f32 });
const again = againDecl as unknown as typeof mul;
const otherDecl = declareDevice('mul_f32', { args: [f64, f64], returns: f64 });
const other = otherDecl as unknown as typeof mul;

describe('calls of linked code (declareDevice)', () => {
  it('a value call: arguments converted to the declared types, the result of the declared type, the declaration in externals', () => {
    const k = typed(
      (x: Float32Array, y: Float64Array) => {
        const i = cuda.grid(1);
        x[i] = mul(x[i]!, 2);
        y[i] = mul(y[i]!, 0.5);
      },
      [f32x1, f64x1],
      { mul: mulDecl },
    );
    const calls = nodesOf(k.body, 'call');
    expect(calls).toHaveLength(2);
    expect(withoutLocs(calls[0])).toEqual({
      op: 'call',
      type: 'f32',
      symbol: 'mul_f32',
      external: 0,
      args: [
        {
          kind: 'value',
          value: {
            op: 'load',
            type: 'f32',
            ref: { array: 0, indices: [{ op: 'convert', type: 'i64', operand: { op: 'local', type: 'i32', id: 0 } }] },
          },
        },
        { kind: 'value', value: { op: 'const', type: 'f32', value: 2 } },
      ],
    });
    // an f64 argument narrows to the declared f32, as a store to an f32 element does; the f32 result widens into y
    expect(calls[1]!.args[0]).toMatchObject({
      kind: 'value',
      value: { op: 'convert', type: 'f32', operand: { op: 'load', type: 'f64' } },
    });
    expect(calls[1]!.external).toBe(0);
    expect(k.externals).toHaveLength(1);
    expect(k.externals[0]).toMatchObject({ symbol: 'mul_f32', args: ['f32', 'f32'], returns: 'f32', link: [link] });
    expect(k.externals[0]!.simulate).toBe(mulDecl.simulate);
    // the call has a Loc at the call
    expect(calls[0]!.loc).toBeDefined();
  });

  it('an array argument is a pointer to its first element; a writable parameter counts as written', () => {
    const k = typed(
      (x: Float32Array, out: Float64Array) => {
        out[0] = sum(x, x.length);
      },
      [f32x1, f64x1],
      { sum: sumDecl },
    );
    const call = onlyNodeOf(k.body, 'call');
    expect(call.type).toBe('f64');
    expect(call.args[0]).toEqual({ kind: 'pointer', array: 0 });
    expect(call.args[1]).toMatchObject({ kind: 'value', value: { type: 'i32' } });
    expect(k.params[0]).toMatchObject({ kind: 'array', use: { written: true, shape: true } });
  });

  it('a read-only parameter is passed for reading, and memories are passed with their space', () => {
    const ro = typed(
      (x: Float32Array, out: Float64Array) => {
        out[0] = sum(x, 4);
      },
      [array('f32', 1, 'C', { readonly: true }), f64x1],
      { sum: sumDecl },
    );
    expect(ro.params[0]).toMatchObject({ use: { written: false } });
    const k = typed(
      (out: Float64Array) => {
        const tile = cuda.shared.array(32, f32);
        const mine = cuda.local.array(4, f32);
        out[0] = sum(tile, 32) + sum(mine, 4);
      },
      [f64x1],
      { sum: sumDecl },
    );
    expect(nodesOf(k.body, 'call').map((c) => c.args[0])).toEqual([
      { kind: 'pointer', array: 0, space: 'shared' },
      { kind: 'pointer', array: 1, space: 'local' },
    ]);
  });

  it('as a statement the result is dropped; bool and i64 results and arguments', () => {
    const k = typed(
      (x: BigInt64Array, flags: Uint8Array) => {
        const i = cuda.grid(1);
        isBig(x[i]!);
        if (isBig(x[i]! + 1n)) flags[i] = 1;
      },
      [array('i64', 1), array('u8', 1)],
      { isBig: isBigDecl },
    );
    expect(k.body.filter((s) => s.op === 'expr' && s.expr.op === 'call')).toHaveLength(1);
    const test = onlyNodeOf(k.body, 'if').test;
    expect(test).toMatchObject({
      op: 'call',
      type: 'bool',
      symbol: 'is_big',
      args: [{ kind: 'value', value: { type: 'i64' } }],
    });
  });

  it('declarations are kept once each, in first-call order, also when device functions call them', () => {
    const twice = device((a: number) => mul(a, a), { constants: { mul: mulDecl } });
    const k = typed(
      (x: Float32Array, out: Float64Array) => {
        out[0] = sum(x, 2);
        x[0] = twice(x[0]!);
        x[1] = mul(x[1]!, 3);
      },
      [f32x1, f64x1],
      { sum: sumDecl, twice, mul: mulDecl },
    );
    expect(k.externals.map((e) => e.symbol)).toEqual(['sum_f32', 'mul_f32']);
    expect(nodesOf(k.body, 'call').map((c) => [c.symbol, c.external])).toEqual([
      ['sum_f32', 0],
      ['mul_f32', 1],
      ['mul_f32', 1],
    ]);
    // a second declaration of the same symbol with the same signature is another entry of the same symbol
    const both = typed(
      (x: Float32Array) => {
        x[0] = mul(x[0]!, 2) + again(x[1]!, 3);
      },
      [f32x1],
      { mul: mulDecl, again: againDecl },
    );
    expect(both.externals.map((e) => e.symbol)).toEqual(['mul_f32', 'mul_f32']);
  });

  it('kernels without calls have no externals', () => {
    const k = typed(
      (x: Float32Array) => {
        x[0] = 1;
      },
      [f32x1],
    );
    expect(k.externals).toEqual([]);
  });
});

describe('calls of linked code: errors at the call', () => {
  it('refuse wrong argument counts, arrays for scalars, scalars for arrays, and other dtypes or ndims', () => {
    const count = typingError(
      (x: Float32Array) => {
        x[0] = (mul as unknown as Fn<[number], number>)(x[0]!); // E-count
      },
      [f32x1],
      { mul: mulDecl },
    );
    expect(count).toBeInstanceOf(KernelTypeError);
    expect(count.detail).toBe("'mul' (linked as 'mul_f32') takes 2 argument(s) (f32, f32), 1 given");
    here.expectAt(count, 'E-count', 'mul as');

    const arrayForScalar = typingError(
      (x: Float32Array) => {
        x[0] = mul(x as unknown as number, 2); // E-array
      },
      [f32x1],
      { mul: mulDecl },
    );
    expect(arrayForScalar.detail).toBe("argument 1 of 'mul' is a f32; 'x' is an array (array(f32, 1, 'C'))");
    here.expectAt(arrayForScalar, 'E-array', 'x as');

    const scalarForArray = typingError(
      (x: Float32Array, out: Float64Array) => {
        out[0] = sum(x[0] as unknown as Float32Array, 1); // E-scalar
      },
      [f32x1, f64x1],
      { sum: sumDecl },
    );
    expect(scalarForArray.detail).toBe(
      "argument 1 of 'sum' is an array (array(f32, 1, 'C'), passed as a pointer to its first element): pass an array, got a value",
    );
    here.expectAt(scalarForArray, 'E-scalar', 'x[0]');

    const dtype = typingError(
      (x: Float64Array, out: Float64Array) => {
        out[0] = sum(x, 1); // E-dtype
      },
      [f64x1, f64x1],
      { sum: sumDecl },
    );
    expect(dtype.detail).toBe(
      "argument 1 of 'sum' is an array of f32 with 1 dimension(s) (array(f32, 1, 'C')); 'x' is array(f64, 1, 'C')",
    );
    here.expectAt(dtype, 'E-dtype', 'x, 1');

    expect(() =>
      typed(
        (x: Float32Array, out: Float64Array) => {
          out[0] = sum(x, 1);
        },
        [f32x2, f64x1],
        { sum: sumDecl },
      ),
    ).toThrow(/argument 1 of 'sum' is an array of f32 with 1 dimension\(s\).*'x' is array\(f32, 2, 'C'\)/);
  });

  it('refuse the declaration as a value, conflicting declarations of one symbol, and the kernel symbol', () => {
    const value = typingError(
      (x: Float32Array) => {
        x[0] = mul as unknown as number;
      },
      [f32x1],
      { mul: mulDecl },
    );
    // (the cast that the compiler removed keeps the locator from this line; the device functions' tests do the same)
    expect(value.detail).toBe("'mul' is linked device code (declareDevice 'mul_f32'): call it, mul(...)");

    const conflict = typingError(
      (x: Float32Array) => {
        x[0] = mul(x[0]!, 2);
        x[1] = other(x[1]!, 2); // E-conflict
      },
      [f32x1],
      { mul: mulDecl, other: otherDecl },
    );
    expect(conflict.detail).toBe(
      "'other' declares 'mul_f32' as (f64, f64) => f64, but another declaration the kernel calls has it as (f32, f32) => f32",
    );
    here.expectAt(conflict, 'E-conflict', 'other(');

    // the typer's tests name every kernel 'k'
    const own = declareDevice('k', { args: [], returns: i32 });
    expect(() =>
      typed(
        (x: Int32Array) => {
          x[0] = (own as unknown as Fn<[], number>)();
        },
        [array('i32', 1)],
        { own },
      ),
    ).toThrow(/'own' is declared as 'k', which is the kernel's own symbol/);
  });
});
