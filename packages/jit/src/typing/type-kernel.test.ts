import { errorOf } from '@cuda-js/test-support/errors';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseKernel } from '../parse/parse-kernel.js';
import { captureCallSite } from '../parse/source-locator.js';
import { FreeVariableError, KernelTypeError, UnsupportedSyntaxError } from '../errors.js';
import { array } from './signature.js';
import { typeKernel } from './type-kernel.js';
import { jit } from '../jit.js';
import type { JitType } from './jit-types.js';
import type { Expr, Stmt, TypedKernel } from './typed-ir.js';

declare const cuda: { grid(n: 1): number; grid(n: 2): [number, number]; threadIdx: { x: number } };
declare function f32(x: number): number;

const f32x1 = array('f32', 1);

function typed(
  fn: (...args: never[]) => unknown,
  signature: JitType[],
  constants?: Record<string, number>,
): TypedKernel {
  return typeKernel(parseKernel(fn, captureCallSite()), signature, { symbol: 'k', constants });
}

/** Every expression of a kernel, depth first. */
function expressions(stmts: readonly Stmt[]): Expr[] {
  const out: Expr[] = [];
  const visitExpr = (e: Expr | undefined): void => {
    if (!e) return;
    out.push(e);
    for (const value of Object.values(e)) {
      if (value && typeof value === 'object' && 'op' in value) visitExpr(value as Expr);
      if (Array.isArray(value))
        for (const v of value) if (v && typeof v === 'object' && 'op' in v) visitExpr(v as Expr);
    }
    if (e.op === 'load' || e.op === 'store') e.ref.indices.forEach(visitExpr);
  };
  const visit = (s: Stmt): void => {
    if (s.op === 'expr') visitExpr(s.expr);
    if (s.op === 'if') {
      visitExpr(s.test);
      s.then.forEach(visit);
      s.otherwise.forEach(visit);
    }
    if (s.op === 'loop') {
      visitExpr(s.test);
      visitExpr(s.postTest);
      s.body.forEach(visit);
      s.update.forEach(visit);
    }
    if (s.op === 'block') s.body.forEach(visit);
  };
  stmts.forEach(visit);
  return out;
}

describe('typeKernel', () => {
  it('types axpy: f32 scalar, f32 arrays, i32 index, length from the shape', () => {
    const k = typed(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]! + y[i]!;
      },
      ['f32', f32x1, f32x1],
    );
    expect(k.locals.map((l) => `${l.name}:${l.type}`)).toEqual(['a:f32', 'i:i32']);
    expect(k.params[1]).toMatchObject({ kind: 'array', use: { shape: false, strides: false, written: false } });
    expect(k.params[2]).toMatchObject({ kind: 'array', use: { shape: true, strides: false, written: true } });
    const store = expressions(k.body).find((e) => e.op === 'store');
    expect(store?.type).toBe('f32');
  });

  it('a plain number (f64) times an f32 element is f64, narrowed on store', () => {
    const k = typed(
      (a: number, x: Float32Array) => {
        const i = cuda.grid(1);
        x[i] = a * x[i]!;
      },
      ['f64', f32x1],
    );
    const store = expressions(k.body).find((e) => e.op === 'store');
    expect(store?.op === 'store' && store.value.op).toBe('convert');
    expect(store?.op === 'store' && (store.value as { operand: Expr }).operand.type).toBe('f64');
  });

  it('literals take the type they meet; accumulators take the join of what they hold', () => {
    const k = typed(
      (x: Float32Array, out: Float32Array) => {
        let s = 0;
        for (let j = 0; j < x.length; j++) s += x[j]! * 2;
        out[0] = s;
      },
      [f32x1, f32x1],
    );
    expect(k.locals.find((l) => l.name === 's')?.type).toBe('f32');
    expect(k.locals.find((l) => l.name === 'j')?.type).toBe('i32');
  });

  it('32-bit integer division is float division (JavaScript), 64-bit is integer division (BigInt)', () => {
    const k32 = typed(
      (x: Float64Array, n: number) => {
        x[0] = n / 2;
      },
      [array('f64', 1), 'i32'],
    );
    const d32 = expressions(k32.body).find((e) => e.op === 'binary');
    expect(d32).toMatchObject({ operator: 'div', type: 'f64' });
    const k64 = typed(
      (x: BigInt64Array, n: bigint) => {
        x[0] = n / 2n;
      },
      [array('i64', 1), 'i64'],
    );
    const d64 = expressions(k64.body).find((e) => e.op === 'binary');
    expect(d64).toMatchObject({ operator: 'div', type: 'i64' });
  });

  it('takes constants and refuses free variables with the position', () => {
    const N = 4;
    const k = typed(
      (x: Float32Array) => {
        x[0] = N;
      },
      [f32x1],
      { N: 4 },
    );
    expect(expressions(k.body).some((e) => e.op === 'const' && e.value === 4)).toBe(true);
    const error = errorOf<unknown>(() => {
      typed(
        (x: Float32Array) => {
          x[0] = N * 2; // the line asserted below
        },
        [f32x1],
      );
    });
    expect(error).toBeInstanceOf(FreeVariableError);
    const err = error as FreeVariableError;
    expect(err.file).toMatch(/type-kernel\.test\.ts$/);
    const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('x[0] = N * 2; // the line asserted below')) + 1;
    expect(err.line).toBe(line);
    expect(err.column).toBe(lines[line - 1]!.indexOf('N * 2') + 1);
    expect(err.snippet).toContain('x[0] = N * 2;');
    expect(err.message).toContain(`${err.file}:${line}:${err.column}: 'N' is not a parameter`);
  });

  it('refuses an assignment to a name that is no local: a global constant, or a free variable', () => {
    // built from text: TypeScript itself refuses these assignments
    const toNaN = new Function('x', 'NaN = 1; x[0] = 1;') as (x: Float32Array) => void;
    expect(() => typed(toNaN, [f32x1])).toThrow(KernelTypeError);
    expect(() => typed(toNaN, [f32x1])).toThrow("'NaN' is a constant and cannot be assigned");
    const toFree = new Function('x', 'missing = 1; x[0] = 1;') as (x: Float32Array) => void;
    expect(() => typed(toFree, [f32x1])).toThrow(FreeVariableError);
  });

  it('refuses writes to read-only arrays, float indices and unsupported syntax', () => {
    expect(() =>
      typed(
        (x: Float32Array) => {
          x[0] = 1;
        },
        [array('f32', 1, 'C', { readonly: true })],
      ),
    ).toThrow(KernelTypeError);
    expect(() =>
      typed(
        (x: Float32Array, i: number) => {
          x[i / 2] = 1;
        },
        [f32x1, 'f64'],
      ),
    ).toThrow(/index must be an integer/);
    expect(() =>
      typed(
        (x: Float32Array) => {
          for (const v of x) x[0] = v;
        },
        [f32x1],
      ),
    ).toThrow(UnsupportedSyntaxError);
  });

  it('destructures cuda.grid(2) and indexes 2-D arrays with get/set', () => {
    const k = typed(
      (m: { get(i: number, j: number): number; set(i: number, j: number, v: number): void }) => {
        const [i, j] = cuda.grid(2);
        m.set(i, j, m.get(i, j) + 1);
      },
      [array('f32', 2, 'C')],
    );
    expect(k.params[0]).toMatchObject({ use: { shape: true, strides: false, written: true } });
  });
});

describe('typeKernel: postfix updates of elements', () => {
  it('keep the old value exactly, for floats too', () => {
    const k = typed(
      (x: Float64Array, out: Float64Array) => {
        out[0] = x[0]!++;
      },
      [array('f64', 1), array('f64', 1)],
    );
    const old = k.locals.find((l) => l.name === '$old');
    expect(old?.type).toBe('f64');
    const run = jit(
      (x: Float64Array, out: Float64Array) => {
        out[0] = x[0]!++;
        out[1] = x[1]!--;
      },
      { target: 'simulator' },
    );
    const x = Float64Array.of(2 ** 60 + 2 ** 10, 0.1);
    const out = new Float64Array(2);
    run.launch({ grid: 1, block: 1 }, x, out);
    expect([...out]).toEqual([2 ** 60 + 2 ** 10, 0.1]);
    expect([...x]).toEqual([2 ** 60 + 2 ** 10 + 1, 0.1 - 1]);
  });
});
