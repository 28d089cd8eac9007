/**
 * How each `cuda.*` call is typed: one rule per intrinsic, keyed by its path
 * under `cuda` (`syncthreads`, `atomic.add`, `cg.thisGrid().sync`). A rule
 * is a statement (intrinsics that give nothing: barriers, fences, sleep,
 * printf) or a value. Arguments are counted against the rule's `usage`
 * before the rule runs; the memory makers (`shared.array`, ...) are typed
 * where they are declared (kernel-memories.ts).
 */
import { numbaCudaHint } from './numba-spellings.js';
import type { ESTree } from 'meriyah';
import { atomicCall, ATOMIC_NAMES, atomicUsage } from './atomic-calls.js';
import { FP16_CALLS } from './fp16-calls.js';
import { isInteger, type ScalarName } from './jit-types.js';
import { MEMORY_MAKERS } from './kernel-memories.js';
import { mmaCall, mmaUsage } from './mma-calls.js';
import { printfCall } from './print-calls.js';
import { MMA_FUNCTIONS } from '../intrinsics/mma.js';
import { PACKS, type PackRow, type PackTo } from '../intrinsics/packs.js';
import { arithmeticType, defaultLiteralType } from './promotion.js';
import { BIT_FUNCTIONS, bitResultType, type BitFunction } from '../intrinsics/bits.js';
import { FENCES, type FenceScope } from '../intrinsics/fences.js';
import { CUDA_MATH, type CudaMathRow } from '../intrinsics/math.js';
import { LANE_MASKS, type LaneMask, type LaneMaskRow } from '../intrinsics/lane-masks.js';
import { TIMERS, type TimerName } from '../intrinsics/timers.js';
import { WARP_MATCHES, type WarpMatchMode, type WarpMatchRow } from '../intrinsics/warp-matches.js';
import { WARP_SHUFFLES, type WarpShuffleRow } from '../intrinsics/warp-shuffles.js';
import { WARP_VOTES, type WarpVoteMode, type WarpVoteRow } from '../intrinsics/warp-votes.js';
import {
  MATH_FUNCTIONS,
  SHUFFLE_TYPES,
  type Expr,
  type Loc,
  type ShuffleMode,
  type SpecialRegister,
  type Stmt,
  type VoteMode,
} from './typed-ir.js';
import {
  integerArgument,
  integerOf,
  isLiteralType,
  literalValue,
  typed,
  type Node,
  type Typed,
  type TyperContext,
} from './typer-context.js';
import { nameTable } from './name-table.js';

type Call = ESTree.CallExpression;

interface IntrinsicRule {
  /** The call as written, for messages: parameters ending in `?` are optional, `...rest` takes any number. */
  readonly usage: string;
  readonly statement?: (c: TyperContext, args: readonly Node[], call: Call) => Stmt;
  readonly value?: (c: TyperContext, args: readonly Node[], call: Call) => Typed;
}

/** The parameters of a math function of each arity, as its usage names them. */
const MATH_PARAMETERS: Readonly<Record<number, string>> = { 1: 'x', 2: 'a, b', 3: 'a, b, c' };

const FULL_MASK: Expr = { op: 'const', type: 'u32', value: 0xffffffff };

const mask = (c: TyperContext, node: Node): Expr => integerArgument(c, node, 'u32', 'a lane mask');

/** A value that warp operations move or compare: 32- and 64-bit integers and floats; smaller integers become i32. */
function warpValue(c: TyperContext, node: Node, what: string): Expr {
  const v = c.expression(node);
  if (v.type === 'bool') c.typeError(node, `${what} takes a number, got a bool; convert it first: cuda.i32(x)`);
  const t = isLiteralType(v.type) ? defaultLiteralType(v.type, v.value) : arithmeticType(v.type);
  if (!SHUFFLE_TYPES.includes(t)) c.typeError(node, `${what} takes ${SHUFFLE_TYPES.join(', ')}, got ${t}`);
  return c.to(v, t, node);
}

/** A shuffle's rule, from its row: a mask, a 32- or 64-bit value, a lane and an optional width. */
function shuffle(name: string, row: WarpShuffleRow): IntrinsicRule {
  const mode = row.mode as ShuffleMode;
  const lane = row.lane;
  return {
    usage: `${name}(mask, value, ${lane}, width?)`,
    value: (c, [m, v, l, w], call) => {
      c.useCollective('warp');
      const m32 = mask(c, m!);
      const value = warpValue(c, v!, `cuda.${name}`);
      const lane32 = integerArgument(c, l!, 'i32', `the ${lane} of a shuffle`);
      let width: Expr = { op: 'const', type: 'i32', value: 32, loc: c.loc(call) };
      if (w) {
        const t = c.expression(w);
        const given = literalValue(t);
        if (
          given !== undefined &&
          !(Number.isInteger(given) && given >= 1 && given <= 32 && (given & (given - 1)) === 0)
        ) {
          c.typeError(w, `the width of a shuffle is a power of two from 1 to 32, got ${given}`);
        }
        width = integerOf(c, t, w, 'i32', 'the width of a shuffle');
      }
      return typed({ op: 'shuffle', type: value.type, mode, mask: m32, value, lane: lane32, width, loc: c.loc(call) });
    },
  };
}

/** A warp vote's rule, from its row: a mask and a predicate, the row's result type. */
function warpVote(name: string, row: WarpVoteRow): IntrinsicRule {
  return {
    usage: `${name}(mask, predicate)`,
    value: (c, [m, p], call) => {
      c.useCollective('warp');
      const m32 = mask(c, m!);
      const predicate = c.truthy(c.expression(p!), p!);
      return typed({
        op: 'vote',
        type: row.result,
        scope: 'warp',
        mode: row.mode as WarpVoteMode,
        mask: m32,
        predicate,
        loc: c.loc(call),
      });
    },
  };
}

function blockVote(mode: 'count' | 'and' | 'or'): IntrinsicRule {
  return {
    usage: `syncthreads_${mode}(predicate)`,
    value: (c, [p], call) => {
      c.useCollective('block');
      const predicate = c.truthy(c.expression(p!), p!);
      return typed({
        op: 'vote',
        type: mode === 'count' ? 'i32' : 'bool',
        scope: 'block',
        mode: mode satisfies VoteMode,
        predicate,
        loc: c.loc(call),
      });
    },
  };
}

/** A warp match's rule, from its row: a mask and a 32- or 64-bit value, u32. */
function match(name: string, row: WarpMatchRow): IntrinsicRule {
  return {
    usage: `${name}(mask, value)`,
    value: (c, [m, v], call) => {
      c.useCollective('warp');
      const m32 = mask(c, m!);
      const value = warpValue(c, v!, `cuda.${name}`);
      return typed({
        op: 'match',
        type: 'u32',
        mode: row.mode as WarpMatchMode,
        mask: m32,
        value,
        valueType: value.type,
        loc: c.loc(call),
      });
    },
  };
}

/** A bit function's rule, from its row: one integer argument (a literal as JavaScript would hold it), the row's result type. */
function bits(fn: BitFunction): IntrinsicRule {
  const row = BIT_FUNCTIONS[fn];
  return {
    usage: `${fn}(x)`,
    value: (c, [x], call) => {
      const v = c.expression(x!);
      if (v.type === 'float-literal' || (!isLiteralType(v.type) && !isInteger(v.type))) {
        c.typeError(
          x!,
          `cuda.${fn}(x) takes an integer, got ${v.type === 'float-literal' ? 'a float literal' : v.type}`,
        );
      }
      const argType: ScalarName = isLiteralType(v.type) ? defaultLiteralType(v.type, v.value) : arithmeticType(v.type);
      if (!row.argTypes.includes(argType))
        c.typeError(x!, `cuda.${fn}(x) takes ${row.argTypes.join(', ')}, got ${argType}`);
      return typed({
        op: 'bits',
        type: bitResultType(fn, argType),
        fn,
        argType,
        arg: c.to(v, argType, x!),
        loc: c.loc(call),
      });
    },
  };
}

/** The rules of the fences, timers and lane masks, from their tables' rows: calls without arguments. */
const TABLE_RULES: Record<string, IntrinsicRule> = {
  ...Object.fromEntries(
    (Object.keys(FENCES) as FenceScope[]).map((scope) => [
      FENCES[scope].cuda,
      { usage: `${FENCES[scope].cuda}()`, statement: (c, _args, call) => ({ op: 'fence', scope, loc: c.loc(call) }) },
    ]),
  ),
  ...Object.fromEntries(
    (Object.keys(TIMERS) as TimerName[]).map((which) => [
      which,
      { usage: `${which}()`, value: (c, _args, call) => typed({ op: 'timer', type: 'u64', which, loc: c.loc(call) }) },
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(LANE_MASKS).map(([name, row]: [string, LaneMaskRow]) => [
      name,
      {
        usage: `${name}()`,
        value: (c, _args, call) => {
          if (row.collective) c.useCollective('warp');
          return typed({ op: 'lanemask', type: 'u32', which: row.which as LaneMask, loc: c.loc(call) });
        },
      },
    ]),
  ),
} satisfies Record<string, IntrinsicRule>;

/** The count that `cuda.grid(n)` and `cuda.gridsize(n)` take: a constant 1, 2 or 3. */
export function dimensionCount(c: TyperContext, call: Call, what: string): 1 | 2 | 3 {
  const arg = call.arguments[0];
  const t = arg ? c.expression(arg) : undefined;
  const v = t?.type === 'int-literal' ? literalValue(t) : undefined;
  if (call.arguments.length !== 1 || (v !== 1 && v !== 2 && v !== 3))
    c.typeError(call, `cuda.${what}(n) takes a constant n of 1, 2 or 3`);
  return v;
}

/** `cuda.grid(n)`'s component along `axis`: `ctaid * ntid + tid` (i32). */
export function gridComponent(axis: number, loc: Loc): Expr {
  const a = 'xyz'[axis]!;
  const r = (register: string): Expr => ({
    op: 'special',
    type: 'i32',
    register: `${register}.${a}` as SpecialRegister,
    loc,
  });
  return {
    op: 'binary',
    type: 'i32',
    operator: 'add',
    left: { op: 'binary', type: 'i32', operator: 'mul', left: r('ctaid'), right: r('ntid'), loc },
    right: r('tid'),
    loc,
  };
}

/** `cuda.gridsize(n)`'s component along `axis`: `ntid * nctaid` (i32). */
export function gridSizeComponent(axis: number, loc: Loc): Expr {
  const a = 'xyz'[axis]!;
  const r = (register: string): Expr => ({
    op: 'special',
    type: 'i32',
    register: `${register}.${a}` as SpecialRegister,
    loc,
  });
  return { op: 'binary', type: 'i32', operator: 'mul', left: r('ntid'), right: r('nctaid'), loc };
}

function gridRule(what: 'grid' | 'gridsize'): IntrinsicRule {
  return {
    usage: `${what}(ndim)`,
    value: (c, _args, call) => {
      const n = dimensionCount(c, call, what);
      if (n !== 1)
        c.typeError(
          call,
          `cuda.${what}(${n}) gives ${n} values: write const [${['i', 'j', 'k'].slice(0, n).join(', ')}] = cuda.${what}(${n})`,
        );
      return typed(what === 'grid' ? gridComponent(0, c.loc(call)) : gridSizeComponent(0, c.loc(call)));
    },
  };
}

const memoryMaker = (path: string, usage: string): IntrinsicRule => ({
  usage,
  value: (c, _args, call) =>
    c.typeError(call, `cuda.${path}(...) makes an array: declare it as const name = cuda.${usage}`),
});

export const CUDA_CALLS: Readonly<Record<string, IntrinsicRule>> = nameTable({
  grid: gridRule('grid'),
  gridsize: gridRule('gridsize'),
  ...Object.fromEntries(
    Object.entries(CUDA_MATH).map(([name, row]: [string, CudaMathRow]) => [
      name,
      {
        usage: `${name}(${MATH_PARAMETERS[MATH_FUNCTIONS[row.fn].arity]})`,
        value: (c, args, call) => c.math(row.fn, args, call),
      },
    ]),
  ),
  selp: {
    usage: 'selp(test, a, b)',
    value: (c, [test, a, b], call) =>
      c.select(c.truthy(c.expression(test!), test!), c.expression(a!), c.expression(b!), call, a!, b!),
  },
  ...Object.fromEntries(Object.keys(BIT_FUNCTIONS).map((fn) => [fn, bits(fn as BitFunction)])),

  // ---- memories (declared in `const` declarations; anywhere else an error) ----
  'shared.array': memoryMaker('shared.array', 'shared.array(shape, dtype)'),
  'local.array': memoryMaker('local.array', 'local.array(shape, dtype)'),
  'const.arrayLike': memoryMaker('const.arrayLike', 'const.arrayLike(hostArray)'),

  // ---- synchronization ----
  syncthreads: {
    usage: 'syncthreads()',
    statement: (c, _args, call) => {
      c.useCollective('block');
      return { op: 'barrier', scope: 'block', loc: c.loc(call) };
    },
  },
  syncthreads_count: blockVote('count'),
  syncthreads_and: blockVote('and'),
  syncthreads_or: blockVote('or'),
  syncwarp: {
    usage: 'syncwarp(mask?)',
    statement: (c, [m], call) => {
      c.useCollective('warp');
      return {
        op: 'barrier',
        scope: 'warp',
        mask: m ? mask(c, m) : { ...FULL_MASK, loc: c.loc(call) },
        loc: c.loc(call),
      };
    },
  },
  'cg.thisGrid().sync': {
    usage: 'cg.thisGrid().sync()',
    statement: (c, _args, call) => {
      c.useCollective('grid');
      return { op: 'barrier', scope: 'grid', loc: c.loc(call) };
    },
  },
  'cg.thisGrid': {
    usage: 'cg.thisGrid()',
    value: (c, _args, call) =>
      c.typeError(
        call,
        'cuda.cg.thisGrid() is the grid group: call cuda.cg.thisGrid().sync(), or hold it in const g = cuda.cg.thisGrid() and call g.sync()',
      ),
  },
  nanosleep: {
    usage: 'nanosleep(nanoseconds)',
    statement: (c, [ns], call) => ({
      op: 'sleep',
      nanoseconds: integerArgument(c, ns!, 'u32', 'the time of cuda.nanosleep'),
      loc: c.loc(call),
    }),
  },
  printf: { usage: 'printf(format, ...args)', statement: (c, args, call) => printfCall(c, args, call) },

  // ---- atomics ----
  ...Object.fromEntries(
    ATOMIC_NAMES.map((fn): [string, IntrinsicRule] => [
      `atomic.${fn}`,
      { usage: atomicUsage(fn), value: (c, args, call) => atomicCall(c, fn, args, call) },
    ]),
  ),

  // ---- tensor cores: the rows of intrinsics/mma.ts ----
  ...Object.fromEntries(
    Object.keys(MMA_FUNCTIONS).map((name): [string, IntrinsicRule] => [
      `mma.${name}`,
      { usage: mmaUsage(name), value: (c, args, call) => mmaCall(c, name, args, call) },
    ]),
  ),

  ...Object.fromEntries(
    Object.entries(PACKS).map(([name, row]: [string, PackRow]): [string, IntrinsicRule] => [
      name,
      {
        usage: `${name}(lo, hi)`,
        value: (c, [lo, hi], call) => {
          const f32 = (node: Node): Expr => {
            const v = c.expression(node);
            if (v.type === 'bool') c.typeError(node, `cuda.${name} takes numbers, got a bool`);
            return c.to(v, 'f32', node);
          };
          return typed({ op: 'pack', type: 'u32', to: row.to as PackTo, lo: f32(lo!), hi: f32(hi!), loc: c.loc(call) });
        },
      },
    ]),
  ),

  // ---- numba's cuda.fp16 ----
  ...FP16_CALLS,

  // ---- warp ----
  ...Object.fromEntries(
    Object.entries(WARP_SHUFFLES).map(([name, row]: [string, WarpShuffleRow]) => [name, shuffle(name, row)]),
  ),
  ...Object.fromEntries(
    Object.entries(WARP_VOTES).map(([name, row]: [string, WarpVoteRow]) => [name, warpVote(name, row)]),
  ),
  ...Object.fromEntries(
    Object.entries(WARP_MATCHES).map(([name, row]: [string, WarpMatchRow]) => [name, match(name, row)]),
  ),

  // ---- fences, timers and lane masks: their tables' rows ----
  ...TABLE_RULES,
} satisfies Record<string, IntrinsicRule>);

// every memory maker has its rule
for (const path of Object.keys(MEMORY_MAKERS))
  if (!CUDA_CALLS[path]) throw new Error(`cuda-calls: no rule for cuda.${path}`);

/** How many arguments a usage takes: `f(a, b?)` 1 to 2, `f(a, ...rest)` 1 or more. */
function arity(usage: string): { readonly min: number; readonly max: number } {
  const inside = usage.slice(usage.lastIndexOf('(') + 1, usage.lastIndexOf(')')).trim();
  const params = inside === '' ? [] : inside.split(',').map((p) => p.trim());
  const rest = params.some((p) => p.startsWith('...'));
  const required = params.filter((p) => !p.endsWith('?') && !p.startsWith('...')).length;
  return { min: required, max: rest ? Infinity : params.length };
}

function ruleFor(c: TyperContext, path: string, call: Call): IntrinsicRule {
  const rule = Object.hasOwn(CUDA_CALLS, path) ? CUDA_CALLS[path] : undefined;
  if (!rule) return c.typeError(call, `cuda.${path}() is not an intrinsic kernels have${numbaCudaHint(path)}`);
  const { min, max } = arity(rule.usage);
  const n = call.arguments.length;
  if (n < min || n > max) {
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    c.typeError(call, `cuda.${rule.usage} takes ${expected} argument(s), ${n} given`);
  }
  return rule;
}

/** The statement that a `cuda.<path>(...)` call makes, where it is an intrinsic that gives nothing; else undefined. */
export function cudaStatement(c: TyperContext, path: string, call: Call): Stmt | undefined {
  const rule = Object.hasOwn(CUDA_CALLS, path) ? CUDA_CALLS[path] : undefined;
  if (!rule?.statement) return undefined;
  return ruleFor(c, path, call).statement!(c, call.arguments, call);
}

/** The value of a `cuda.<path>(...)` call. */
export function cudaValue(c: TyperContext, path: string, call: Call): Typed {
  const rule = ruleFor(c, path, call);
  if (!rule.value)
    return c.typeError(call, `cuda.${rule.usage.replace(/\(.*/s, '()')} gives no value: call it as a statement`);
  return rule.value(c, call.arguments, call);
}
