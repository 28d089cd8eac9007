/**
 * numba's `cuda.fp16` functions (`cuda.fp16.hadd(a, b)`, ...): f16
 * arithmetic, comparisons and math written as calls, as numba (and CUDA's
 * cuda_fp16.h) spell them. Each takes f16 values (literals, f16 values and
 * what widens into f16 implicitly: bool and the 8-bit integers) and is the
 * kernel language's own f16 operation, so both backends compute it as they
 * compute `a + b` on f16 (one rounding to f16):
 * - hadd, hsub, hmul, hdiv: `a + b`, `a - b`, `a * b`, `a / b`, rounded once;
 *   hfma: `a * b + c` rounded once (`fma.rn.f16`); hneg: `-a`; habs: `|a|`.
 * - heq, hne, hgt, hge, hlt, hle: the comparisons (bool; ordered, except hne).
 * - hmax, hmin: the larger (smaller) value; a NaN argument gives the other
 *   one, as CUDA's `__hmax`/`__hmin` do (Math.max lets NaN win instead).
 * - hsin, hcos, hlog, hlog2, hlog10, hexp, hexp2, hsqrt, hceil, hfloor,
 *   htrunc: the math functions on f16 (the f32 function rounded to f16);
 *   hexp10 is `10 ** x`, hrsqrt `1 / sqrt(x)` and hrcp `1 / x`, each
 *   computed in f32 and rounded to f16 once.
 */
import type { ESTree } from 'meriyah';
import { FP16_FUNCTIONS, type Fp16Form, type Fp16Row } from '../intrinsics/fp16.js';
import type { ScalarName } from './jit-types.js';
import { isWidening } from './promotion.js';
import type { CompareOperator, Expr, MathFunction } from './typed-ir.js';
import { isLiteralType, typed, type Node, type Typed, type TyperContext } from './typer-context.js';
import { nameTable } from './name-table.js';

type Call = ESTree.CallExpression;

interface Fp16Rule {
  readonly usage: string;
  readonly value: (c: TyperContext, args: readonly Node[], call: Call) => Typed;
}

/** An argument of a `cuda.fp16` function, as f16. */
function halfArgument(c: TyperContext, node: Node, name: string): Expr {
  const v = c.expression(node);
  if (!isLiteralType(v.type) && !isWidening(v.type, 'f16')) {
    c.typeError(node, `cuda.fp16.${name} takes f16 values, got ${v.type}: convert it first, cuda.f16(x)`);
  }
  return c.to(v, 'f16', node);
}

const halves = (c: TyperContext, args: readonly Node[], name: string): Expr[] =>
  args.map((a) => halfArgument(c, a, name));

function binary(name: string, operator: 'add' | 'sub' | 'mul' | 'div'): Fp16Rule {
  return {
    usage: `fp16.${name}(a, b)`,
    value: (c, args, call) => {
      const [left, right] = halves(c, args, name) as [Expr, Expr];
      return typed({ op: 'binary', type: 'f16', operator, left, right, loc: c.loc(call) });
    },
  };
}

function comparison(name: string, operator: CompareOperator): Fp16Rule {
  return {
    usage: `fp16.${name}(a, b)`,
    value: (c, args, call) => {
      const [left, right] = halves(c, args, name) as [Expr, Expr];
      return typed({ op: 'compare', type: 'bool', operator, operandType: 'f16', left, right, loc: c.loc(call) });
    },
  };
}

function mathRule(name: string, fn: MathFunction): Fp16Rule {
  return {
    usage: `fp16.${name}(x)`,
    value: (c, args, call) =>
      typed({ op: 'math', type: 'f16', fn, argType: 'f16', args: halves(c, args, name), loc: c.loc(call) }),
  };
}

/** A function computed in f32 from the widened f16 argument, rounded to f16 once. */
function inF32(name: string, formula: (x: Expr, loc: ReturnType<TyperContext['loc']>) => Expr): Fp16Rule {
  return {
    usage: `fp16.${name}(x)`,
    value: (c, [x], call) => {
      const loc = c.loc(call);
      const wide: Expr = { op: 'convert', type: 'f32', operand: halfArgument(c, x!, name), loc };
      return typed({ op: 'convert', type: 'f16', operand: formula(wide, loc), loc });
    },
  };
}

const f32Const = (value: number): Expr => ({ op: 'const', type: 'f32', value });

/** `(a > b || b != b) ? a : b` for hmax (`<` for hmin), on temporaries so that each argument is evaluated once. */
function extremum(name: string, operator: 'gt' | 'lt'): Fp16Rule {
  return {
    usage: `fp16.${name}(a, b)`,
    value: (c, args, call) => {
      const loc = c.loc(call);
      const [a, b] = halves(c, args, name) as [Expr, Expr];
      const held = [a, b].map((value, k) => {
        const id = c.hiddenLocal(`$${name}${k}`);
        return {
          assign: c.assignLocal(id, typed(value), call),
          read: { op: 'local', type: 'f16' as ScalarName, id, loc } as Expr,
        };
      });
      const [x, y] = [held[0]!.read, held[1]!.read];
      const wins: Expr = { op: 'compare', type: 'bool', operator, operandType: 'f16', left: x, right: y, loc };
      const otherIsNaN: Expr = {
        op: 'compare',
        type: 'bool',
        operator: 'ne',
        operandType: 'f16',
        left: y,
        right: y,
        loc,
      };
      const test: Expr = { op: 'logical', type: 'bool', operator: 'or', left: wins, right: otherIsNaN, loc };
      const pick: Expr = { op: 'select', type: 'f16', test, then: x, otherwise: y, loc };
      return typed({ op: 'sequence', type: 'f16', effects: held.map((h) => h.assign), value: pick, loc });
    },
  };
}

/** The f32 formula of an `inF32` row, of the widened argument. */
function f32Formula(which: 'exp10' | 'rsqrt' | 'rcp', x: Expr, loc: ReturnType<TyperContext['loc']>): Expr {
  switch (which) {
    case 'exp10':
      return { op: 'math', type: 'f32', fn: 'pow', argType: 'f32', args: [f32Const(10), x], loc };
    case 'rsqrt':
      return {
        op: 'binary',
        type: 'f32',
        operator: 'div',
        left: f32Const(1),
        right: { op: 'math', type: 'f32', fn: 'sqrt', argType: 'f32', args: [x], loc },
        loc,
      };
    case 'rcp':
      return { op: 'binary', type: 'f32', operator: 'div', left: f32Const(1), right: x, loc };
  }
}

/** The rule of a row of intrinsics/fp16.ts. */
function ruleOf(name: string, form: Fp16Form): Fp16Rule {
  if ('binary' in form) return binary(name, form.binary);
  if ('compare' in form) return comparison(name, form.compare);
  if ('extremum' in form) return extremum(name, form.extremum);
  if ('inF32' in form) return inF32(name, (x, loc) => f32Formula(form.inF32, x, loc));
  if ('unary' in form) {
    return {
      usage: `fp16.${name}(a)`,
      value: (c, [a], call) =>
        typed({ op: 'unary', type: 'f16', operator: form.unary, operand: halfArgument(c, a!, name), loc: c.loc(call) }),
    };
  }
  if (form.arity === 1) return mathRule(name, form.math);
  return {
    usage: `fp16.${name}(a, b, c)`,
    value: (c, args, call) =>
      typed({ op: 'math', type: 'f16', fn: form.math, argType: 'f16', args: halves(c, args, name), loc: c.loc(call) }),
  };
}

/** The rules by path under `cuda` (`fp16.hadd`), for cuda-calls.ts's table: one per row of intrinsics/fp16.ts. */
export const FP16_CALLS: Readonly<Record<string, Fp16Rule>> = nameTable(
  Object.fromEntries(
    Object.entries(FP16_FUNCTIONS).map(([name, row]: [string, Fp16Row]) => [`fp16.${name}`, ruleOf(name, row.form)]),
  ),
);

/** The names of the `cuda.fp16` functions (for the host-side `cuda.fp16` object). */
export const FP16_FUNCTION_NAMES = Object.freeze(Object.keys(FP16_CALLS).map((path) => path.slice('fp16.'.length)));
