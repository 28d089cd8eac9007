// The typer's rules for f16 and bf16: promotion, literals, casts, widening,
// Math, atomics, printing and the signature tokens.
import * as core from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { SCALAR_NAMES, type ScalarName } from './jit-types.js';
import { isWidening, promote } from './promotion.js';
import { array, resolveSignature } from './signature.js';
import { nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

// Inside kernels the casts take and give numbers (the typer reads the names f16, bf16, ...).
type Cast = (x: number) => number;
const f16 = core.f16 as unknown as Cast;
const bf16 = core.bf16 as unknown as Cast;
const f32 = core.f32 as unknown as Cast;

const f16x1 = array('f16', 1);
const bf16x1 = array('bf16', 1);

describe('promotion with f16 and bf16', () => {
  it('keeps a 16-bit float with itself and with small integers, gives f32 for mixes of floats below f64, f64 with f64 or a 32/64-bit integer', () => {
    const small: ScalarName[] = ['bool', 'i8', 'u8', 'i16', 'u16'];
    const wide: ScalarName[] = ['i32', 'u32', 'i64', 'u64'];
    for (const h of ['f16', 'bf16'] as const) {
      expect(promote(h, h)).toBe(h);
      for (const t of small) expect([promote(h, t), promote(t, h)], `${h} with ${t}`).toEqual([h, h]);
      for (const t of wide) expect([promote(h, t), promote(t, h)], `${h} with ${t}`).toEqual(['f64', 'f64']);
      expect([promote(h, 'f32'), promote('f32', h)]).toEqual(['f32', 'f32']);
      expect([promote(h, 'f64'), promote('f64', h)]).toEqual(['f64', 'f64']);
    }
    expect([promote('f16', 'bf16'), promote('bf16', 'f16')]).toEqual(['f32', 'f32']);
    // f32 keeps its rules
    expect([promote('f32', 'i16'), promote('f32', 'i32'), promote('f32', 'f64')]).toEqual(['f32', 'f64', 'f64']);
  });

  it('widens implicitly only where nothing is lost: into f32 and f64, 8-bit integers into both, never between f16 and bf16', () => {
    for (const h of ['f16', 'bf16'] as const) {
      expect(isWidening(h, 'f32')).toBe(true);
      expect(isWidening(h, 'f64')).toBe(true);
      expect(isWidening('f32', h)).toBe(false);
      expect(isWidening('bool', h)).toBe(true);
      expect(isWidening('i8', h)).toBe(true);
      expect(isWidening('u8', h)).toBe(true);
      expect(isWidening('i16', h)).toBe(false);
      expect(isWidening(h, 'i32')).toBe(false);
    }
    expect(isWidening('f16', 'bf16')).toBe(false);
    expect(isWidening('bf16', 'f16')).toBe(false);
    expect(SCALAR_NAMES.filter((t) => isWidening(t, 'f32'))).toEqual([
      'bool',
      'i8',
      'u8',
      'i16',
      'u16',
      'f16',
      'bf16',
      'f32',
    ]);
  });
});

describe('kernels on f16 and bf16', () => {
  it('computes f16 with f16 in f16, literals adapting and rounded to f16, stores converted to the element type', () => {
    const k = typed(
      (x: Uint16Array, y: Uint16Array) => {
        const i = cuda.grid(1);
        y[i] = x[i]! * 0.1 + y[i]! - 1;
      },
      [f16x1, f16x1],
    );
    const ops = nodesOf(k.body, 'binary').map((b) => [b.operator, b.type]);
    expect(ops).toContainEqual(['mul', 'f16']);
    expect(ops).toContainEqual(['add', 'f16']);
    expect(ops).toContainEqual(['sub', 'f16']);
    const constants = nodesOf(k.body, 'const').filter((c) => c.type === 'f16');
    expect(constants.map((c) => c.value)).toEqual([core.roundToFloat16(0.1), 1]);
    expect(onlyNodeOf(k.body, 'store').value.type).toBe('f16');
    expect(nodesOf(k.body, 'convert').filter((c) => c.type !== 'i64')).toEqual([]);
  });

  it('gives f32 for f16 with bf16, f64 with an i32, and keeps bf16 with an i8', () => {
    const k = typed(
      (
        h: Uint16Array,
        b: Uint16Array,
        n: Int32Array,
        s: Int8Array,
        o1: Float32Array,
        o2: Float64Array,
        o3: Uint16Array,
      ) => {
        o1[0] = h[0]! + b[0]!;
        o2[0] = h[0]! * n[0]!;
        o3[0] = b[0]! - s[0]!;
      },
      [f16x1, bf16x1, array('i32', 1), array('i8', 1), array('f32', 1), array('f64', 1), bf16x1],
    );
    expect(nodesOf(k.body, 'binary').map((b) => `${b.operator}:${b.type}`)).toEqual(['add:f32', 'mul:f64', 'sub:bf16']);
    // operands converted to the common type (an i8 meets bf16 as bf16)
    expect(nodesOf(k.body, 'convert').map((c) => `${c.operand.type}→${c.type}`)).toContain('i8→bf16');
  });

  it('casts with f16(x) and bf16(x), compares in the common type, and negates in the type', () => {
    const k = typed(
      (x: Float64Array, out: Uint16Array, flags: Uint8Array) => {
        const h = f16(x[0]!);
        const b = bf16(x[1]!);
        out[0] = -h;
        flags[0] = h < b ? 1 : 0;
        flags[1] = b >= 2 ? 1 : 0;
      },
      [array('f64', 1), f16x1, array('u8', 1)],
    );
    const converts = nodesOf(k.body, 'convert').map((c) => `${c.operand.type}→${c.type}`);
    expect(converts).toContain('f64→f16');
    expect(converts).toContain('f64→bf16');
    expect(onlyNodeOf(k.body, 'unary')).toMatchObject({ operator: 'neg', type: 'f16' });
    expect(nodesOf(k.body, 'compare').map((c) => c.operandType)).toEqual(['f32', 'bf16']);
  });

  it('calls Math on f16 and bf16 arguments in their type (f16 fma too), and Math.fround gives f32', () => {
    const k = typed(
      (x: Uint16Array, y: Uint16Array, z: Float32Array) => {
        x[0] = Math.sqrt(x[0]!) + Math.max(x[1]!, 0.5);
        x[1] = cuda.fma(x[0]!, x[1]!, x[2]!);
        y[0] = Math.exp(y[0]!) ** 2;
        z[0] = Math.fround(x[0]!);
      },
      [f16x1, bf16x1, array('f32', 1)],
    );
    expect(nodesOf(k.body, 'math').map((m) => `${m.fn}:${m.argType}`)).toEqual([
      'sqrt:f16',
      'max:f16',
      'fma:f16',
      'pow:bf16',
      'exp:bf16',
    ]);
    expect(nodesOf(k.body, 'convert').map((c) => `${c.operand.type}→${c.type}`)).toContain('f16→f32');
  });

  it('takes cuda.atomic.add on f16 and bf16 arrays (the value converted to the dtype), and refuses the other atomics', () => {
    const k = typed(
      (h: Uint16Array, b: Uint16Array, x: Float32Array) => {
        const i = cuda.grid(1);
        cuda.atomic.add(h, 0, x[i]!);
        cuda.atomic.add(b, i, 1);
      },
      [f16x1, bf16x1, array('f32', 1)],
    );
    const atomics = nodesOf(k.body, 'atomic');
    expect(atomics.map((a) => `${a.fn}:${a.type}`)).toEqual(['add:f16', 'add:bf16']);
    expect(withoutLocs(atomics[0]!.value)).toMatchObject({ op: 'convert', type: 'f16', operand: { type: 'f32' } });
    expect(withoutLocs(atomics[1]!.value)).toEqual({ op: 'const', type: 'bf16', value: 1 });
    const refused = typingError(
      (h: Uint16Array) => {
        cuda.atomic.max(h, 0, 1);
      },
      [f16x1],
    );
    expect(refused.message).toContain('cuda.atomic.max works on arrays of i32, u32, i64, u64, f32, f64');
  });

  it('declares shared and local arrays of f16 and bf16, and refuses a wider value assigned to an f16 parameter', () => {
    const k = typed(
      (out: Uint16Array) => {
        const s = cuda.shared.array(32, f16);
        const l = cuda.local.array(2, bf16);
        s[0] = 1;
        l[0] = s[0]!;
        out[0] = l[0]!;
      },
      [f16x1],
    );
    expect(k.memories.map((m) => `${m.space}:${m.dtype}`)).toEqual(['shared:f16', 'local:bf16']);
    expect(nodesOf(k.body, 'convert').map((c) => `${c.operand.type}→${c.type}`)).toEqual(['f16→bf16', 'bf16→f16']);
    const error = typingError(
      (h: number, x: Float32Array) => {
        h = x[0]!;
        x[1] = h;
      },
      ['f16', array('f32', 1)],
    );
    expect(error.message).toContain("cannot assign a f32 to 'h', a f16 parameter, without a cast: write f16(...)");
    const widened = typed(
      (h: number, x: Uint8Array) => {
        h = x[0]!;
        x[1] = h;
      },
      ['f16', array('u8', 1)],
    );
    expect(nodesOf(widened.body, 'assign')[0]!.value).toMatchObject({
      op: 'convert',
      type: 'f16',
      operand: { type: 'u8' },
    });
  });

  it('prints f16 and bf16 as f64 (console.log with 4 and 3 digits, printf with %f)', () => {
    const k = typed(
      (h: number, b: number) => {
        console.log(h, b);
        cuda.printf('%f %g\n', h, b);
      },
      ['f16', 'bf16'],
    );
    const prints = nodesOf(k.body, 'print');
    expect(prints[0]!.format).toBe('%.4g %.3g\n');
    expect(prints.flatMap((p) => p.args.map((a) => `${a.type}`))).toEqual(['f64', 'f64', 'f64', 'f64']);
  });

  it('names f16 and bf16 in signatures by core’s makers and by name', () => {
    expect(
      resolveSignature([core.f16, core.bf16, array(core.f16, 2), array('bf16', 1, 'C', { readonly: true })]).map((t) =>
        typeof t === 'string' ? t : t.name,
      ),
    ).toEqual(['f16', 'bf16', "array(f16, 2, 'C')", "array(bf16, 1, 'C') readonly"]);
    // f32 stays what it was in an f32 kernel that meets neither
    const k = typed(
      (x: Float32Array) => {
        x[0] = f32(x[0]! * 2);
      },
      [array('f32', 1)],
    );
    expect(nodesOf(k.body, 'binary').map((b) => b.type)).toEqual(['f32']);
  });
});
