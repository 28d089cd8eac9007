import { f32 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { device, deviceFunctionOf, type DeviceFunction } from '../device-function.js';
import { FreeVariableError } from '../errors.js';
import { array } from './signature.js';
import type { Loc } from './typed-ir.js';
import { MarkedLines, nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);
const f32x1 = array('f32', 1);
const f64x1 = array('f64', 1);

const square = device((x: number) => x * x);
const clampUp = device((x: number, limit: number) => {
  if (x > limit) return limit;
  return x;
});
/** What both a Float32Array and a kernel's own array are. */
type Vector = { [index: number]: number; readonly length: number };

const sumOf = device((a: Vector, n: number) => {
  let s = 0;
  for (let j = 0; j < n; j++) s += a[j]!;
  return s;
});
const fill = device((a: Vector, v: number) => {
  for (let j = 0; j < a.length; j++) a[j] = v;
});
const SCALE = 3;
const scaled = device((x: number) => square(x) * SCALE, { constants: { square, SCALE } });

/** Every Loc in a tree. */
function locsOf(tree: unknown): Loc[] {
  const out: Loc[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    for (const [key, child] of Object.entries(value)) {
      if (key === 'loc') out.push(child as Loc);
      else visit(child);
    }
  };
  visit(tree);
  return out;
}

const definition = (f: unknown): DeviceFunction => deviceFunctionOf(f)!;

describe('device functions, inlined', () => {
  it('a value call: arguments into fresh locals, `return v` assigns the result and leaves the block', () => {
    const k = typed(
      (x: Float32Array) => {
        const i = cuda.grid(1);
        x[i] = square(x[i]!);
      },
      [f32x1],
      { square },
    );
    const inline = onlyNodeOf(k.body, 'inline');
    expect(inline.name).toBe('square'); // anonymous: named by the constant it is called by
    expect(inline.type).toBe('f32');
    expect(k.locals.map((l) => `${l.name}:${l.type}`)).toEqual(['i:i32', 'x:f32', 'square$result:f32']);
    expect(inline.result).toBe(2);
    const block = inline.body[0]!;
    expect(inline.body).toHaveLength(1);
    expect(withoutLocs(block)).toMatchObject({
      op: 'block',
      body: [
        { op: 'expr', expr: { op: 'assign', type: 'f32', id: 1, value: { op: 'load', type: 'f32' } } },
        {
          op: 'expr',
          expr: { op: 'assign', type: 'f32', id: 2, value: { op: 'binary', operator: 'mul', type: 'f32' } },
        },
        { op: 'break', target: block.op === 'block' ? block.id : -1 },
      ],
    });
  });

  it('is typed per call site, with the join of the returned values, and literal arguments of their default type', () => {
    const k = typed(
      (p: Float32Array, d: Float64Array) => {
        const i = cuda.grid(1);
        p[i] = clampUp(p[i]!, 50);
        d[i] = square(d[i]!);
      },
      [f32x1, f64x1],
      { clampUp, square },
    );
    const [clamp, sq] = nodesOf(k.body, 'inline');
    expect(clamp).toMatchObject({ name: 'clampUp', type: 'f64' }); // f32 and i32 join to f64
    expect(sq).toMatchObject({ name: 'square', type: 'f64' });
    expect(k.locals.map((l) => `${l.name}:${l.type}`)).toEqual([
      'i:i32',
      'x:f32',
      'limit:i32',
      'clampUp$result:f64',
      'x:f64',
      'square$result:f64',
    ]);
    // the early return breaks out of the call's block
    const block = clamp!.op === 'inline' ? clamp!.body[0]! : undefined;
    const breaks = nodesOf(block, 'break');
    expect(breaks).toHaveLength(2);
    expect(new Set(breaks.map((b) => b.target))).toEqual(new Set([block?.op === 'block' ? block.id : -1]));
  });

  it('array arguments are the caller’s arrays; a call with no value is its block, as a statement', () => {
    const k = typed(
      (a: Float32Array, out: Float32Array) => {
        const tile = cuda.shared.array(8, f32);
        fill(tile, 2);
        out[0] = sumOf(a, a.length) + sumOf(tile, 8);
      },
      [f32x1, f32x1],
      { fill, sumOf },
    );
    expect(k.body[0]).toMatchObject({ op: 'block' });
    expect(nodesOf(k.body[0], 'store').map((s) => s.ref)).toEqual([
      expect.objectContaining({ space: 'shared', array: 0 }),
    ]);
    const sums = nodesOf(k.body, 'inline');
    expect(sums.map((s) => s.type)).toEqual(['f32', 'f32']);
    expect(nodesOf(sums[0], 'load').map((l) => [l.ref.space, l.ref.array])).toEqual([[undefined, 0]]);
    expect(nodesOf(sums[1], 'load').map((l) => [l.ref.space, l.ref.array])).toEqual([['shared', 0]]);
    expect(k.params[0]).toMatchObject({ use: { shape: true, written: false } });
  });

  it("calls other device functions with the callee's own constants; Locs inside carry the callee's locator", () => {
    const k = typed(
      (x: Float64Array) => {
        x[0] = scaled(x[0]!);
      },
      [f64x1],
      { scaled },
    );
    const [outer, inner] = nodesOf(k.body, 'inline');
    expect([outer!.name, inner!.name]).toEqual(['scaled', 'square']);
    expect(nodesOf(outer, 'const').map((c) => c.value)).toContain(3);
    const kernelLocs = locsOf(k.body).filter((l) => l.locator === undefined);
    const outerLocs = locsOf(outer!.body).filter((l) => l.locator === definition(scaled).parsed.locator);
    const innerLocs = locsOf(inner!.body).filter((l) => l.locator === definition(square).parsed.locator);
    expect(kernelLocs.length).toBeGreaterThan(0);
    expect(innerLocs.length).toBeGreaterThan(0);
    // every Loc of the callee's code is in the callee's text
    for (const l of locsOf(inner!.body))
      expect(l.locator === definition(square).parsed.locator || l.locator === definition(scaled).parsed.locator).toBe(
        true,
      );
    expect(outerLocs.length).toBeGreaterThan(innerLocs.length);
    // the kernel's own Locs have no locator (the outer inline node itself is the kernel's call)
    expect(outer!.loc?.locator).toBeUndefined();
    expect(() =>
      typed(
        (x: Float64Array) => {
          x[0] = SCALE;
        },
        [f64x1],
        { scaled },
      ),
    ).toThrow(FreeVariableError);
  });

  it('ids stay stable while an argument type widens over inference rounds', () => {
    const add = device((a: number, b: number) => a + b);
    const k = typed(
      (x: Float32Array, out: Float32Array) => {
        let s = 0;
        for (let j = 0; j < x.length; j++) s = add(s, x[j]!);
        out[0] = s;
      },
      [f32x1, f32x1],
      { add },
    );
    // as `s = s + x[j]` would: s is an f32, not an f64 fixed in a first round where s was still 0
    expect(k.locals.map((l) => `${l.name}:${l.type}`)).toEqual([
      's:f32',
      'j:i32',
      'a:f32',
      'b:f32',
      'add$result:f32',
      'j$old:i32',
    ]);
    const inline = onlyNodeOf(k.body, 'inline');
    expect(inline.result).toBe(4);
  });
});

describe('device function errors', () => {
  const bad = device((x: number) => {
    return x + Date.now(); // D-inside
  });

  it("point into the device function's own text, and say where it was called", () => {
    const error = typingError(
      (x: Float32Array) => {
        x[0] = bad(x[0]!); // D-call
      },
      [f32x1],
      { bad },
    );
    expect(error.detail).toBe('the call Date.now(...) is not supported in kernels');
    here.expectAt(error, 'D-inside', 'Date.now()');
    const call = here.position('D-call', 'bad(');
    expect(error.message).toContain(
      `(in the device function 'bad', called at ${here.file}:${call.line}:${call.column})`,
    );
  });

  it('refuse mixed returns, running off the end with a value, void calls as values and wrong argument counts', () => {
    const mixed = device((x: number) => {
      if (x > 0) return x;
      return; // D-mixed
    });
    const mixedError = typingError(
      (x: Float32Array) => {
        x[0] = mixed(x[0]!) as number;
      },
      [f32x1],
      { mixed },
    );
    expect(mixedError.detail).toBe(
      "'mixed' returns a value elsewhere: every return of a device function gives a value, or none does",
    );
    here.expectAt(mixedError, 'D-mixed', 'return;');
    const fallsOff = device((x: number) => {
      if (x > 0) return x;
    }); // D-end
    const endError = typingError(
      (x: Float32Array) => {
        x[0] = fallsOff(x[0]!) as number;
      },
      [f32x1],
      { fallsOff },
    );
    expect(endError.detail).toBe("'fallsOff' returns a value, but can end without a return here: end it with one");
    here.expectAt(endError, 'D-end', '}');
    const voidError = typingError(
      (x: Float32Array) => {
        x[0] = fill(x, 1) as unknown as number; // D-void
      },
      [f32x1],
      { fill },
    );
    expect(voidError.detail).toBe("'fill' returns no value; call it as a statement");
    here.expectAt(voidError, 'D-void', 'fill(');
    expect(() =>
      typed(
        (x: Float32Array) => {
          // @ts-expect-error: one argument too many
          x[0] = square(x[0]!, 2);
        },
        [f32x1],
        { square },
      ),
    ).toThrow(/'square' takes 1 argument\(s\) \(x\), 2 given/);
    expect(() =>
      typed(
        (x: Float32Array) => {
          x[0] = square as unknown as number;
        },
        [f32x1],
        { square },
      ),
    ).toThrow(/'square' is a device function: call it, square\(\.\.\.\)/);
    // an infinite loop that only returns does not run off the end
    const spin = device((x: number) => {
      for (;;) if (x > 0) return x;
    });
    expect(() =>
      typed(
        (x: Float32Array) => {
          x[0] = spin(x[0]!);
        },
        [f32x1],
        { spin },
      ),
    ).not.toThrow();
  });
});
