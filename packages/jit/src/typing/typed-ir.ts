/**
 * The typed IR: what the `types` stage makes of a kernel's AST for one
 * signature, and what both backends read (`lower` → NVVM IR, `simulate` →
 * JavaScript). It is a tree, close to the source, in which every expression
 * carries its scalar type and every implicit conversion is explicit, so that
 * the backends make no typing decision of their own.
 *
 * Semantics that both backends implement identically (the README's rules):
 * - Integer `add`, `sub`, `mul`, `neg`, `shl` wrap at the type's width.
 * - Integer `div` truncates toward zero, `rem` has the dividend's sign.
 *   (The typer emits integer `div` only for 64-bit types, as BigInt does;
 *   `/` on 32-bit integers is float division, as in JavaScript.)
 * - Shift amounts are taken modulo the type's width (as JavaScript does for 32 bits).
 *   `shr` is arithmetic for signed types and logical for unsigned; `ushr` is always logical.
 * - Float ops round to the type (f32 results are rounded to f32 after each op;
 *   f16 and bf16 ones to f16 and bf16: one rounding of the exact result, to
 *   nearest even, subnormals kept, overflow to ±Infinity).
 *   Float `rem` is C's fmod (JavaScript's `%`).
 * - `compare` on floats is ordered (false with a NaN) except `ne`, which is
 *   true with a NaN, as in JavaScript.
 * - `convert`: int→int wraps (sign- or zero-extends by the source's
 *   signedness); int→float rounds to nearest; float→int truncates toward
 *   zero and saturates at the target's range, NaN gives 0; a float or an
 *   integer to a float that does not hold it exactly (f64→f32, anything→f16
 *   or bf16) rounds to nearest even once, from the exact value; anything→bool is `x != 0` (NaN gives false); bool→number is 0 or 1.
 * - Arithmetic happens only in i32, u32, i64, u64, f16, bf16, f32 and f64: the typer
 *   converts bool, i8, u8, i16 and u16 operands to i32 first.
 * - `logical` and `select` evaluate lazily (short-circuit), like JavaScript.
 * - `math` calls follow the table {@link MATH_FUNCTIONS}: float functions
 *   through libdevice on the GPU and `Math.*` (rounded with `Math.fround` for
 *   f32) in the simulator; `min`, `max`, `round`, `sign` and `abs` are
 *   defined by the formulas given there so that both backends agree.
 */
import type { Loc } from '../errors.js';
import type { LinkInput } from '../external-device-function.js';
import { ATOMIC_FUNCTIONS, type AtomicFunction } from '../intrinsics/atomics.js';
import type { BitFunction } from '../intrinsics/bits.js';
import type { FenceScope } from '../intrinsics/fences.js';
import type { LaneMask } from '../intrinsics/lane-masks.js';
import type { TimerName } from '../intrinsics/timers.js';
import type { MmaShape } from '../intrinsics/mma.js';
import type { PackTo } from '../intrinsics/packs.js';
import type { WarpMatchMode } from '../intrinsics/warp-matches.js';
import type { WarpShuffleMode } from '../intrinsics/warp-shuffles.js';
import type { WarpVoteMode } from '../intrinsics/warp-votes.js';
import type { ArrayType, JitType, ScalarName } from './jit-types.js';

// Source offsets live with the errors that read them (parse makes them and depends on nothing above it).
export type { Loc } from '../errors.js';

export type UnaryOperator = 'neg' | 'not' | 'bitnot';
export type BinaryOperator = 'add' | 'sub' | 'mul' | 'div' | 'rem' | 'and' | 'or' | 'xor' | 'shl' | 'shr' | 'ushr';
export type CompareOperator = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

/** Special registers and constants of the thread's position. All are i32. */
export type SpecialRegister =
  | 'tid.x'
  | 'tid.y'
  | 'tid.z'
  | 'ntid.x'
  | 'ntid.y'
  | 'ntid.z'
  | 'ctaid.x'
  | 'ctaid.y'
  | 'ctaid.z'
  | 'nctaid.x'
  | 'nctaid.y'
  | 'nctaid.z'
  | 'laneid'
  | 'warpsize';

/**
 * The math functions, with how many arguments each takes, whether
 * libdevice implements each directly by its base name (`__nv_sin[f]`:
 * `libdevice`) and whether JavaScript's `Math` computes it under the same
 * name (`jsMath`, the simulator's form); the others have a formula below.
 * One table, so that the GPU's and the simulator's forms stay in step. The typer calls
 * `float` ones only with f16, bf16, f32 or f64 arguments (all of the call's type);
 * `int` ones also with i32, u32, i64 and u64. Result type = argument type,
 * except `isnan` and `isfinite` (bool).
 *
 * Formulas both backends use (a, b of the call's type):
 * - `min(a, b)  = (a < b || a != a) ? a : b`; `max(a, b) = (a > b || a != a) ? a : b`
 *   (NaN wins, as in JavaScript; for ints simply the smaller/larger).
 * - `round(x)   = floor(x) + ((x - floor(x)) >= 0.5 ? 1 : 0)` (JavaScript's half-up).
 * - `sign(x)    = x > 0 ? 1 : x < 0 ? -1 : x` (keeps NaN and ±0).
 * - `abs(x)`: floats clear the sign bit; ints `x < 0 ? -x : x` (wrapping).
 * - `fma(a, b, c)`: one rounding (libdevice `__nv_fma[f]` on the GPU, PTX's
 *   `fma.rn.f16`/`fma.rn.bf16` for the 16-bit floats; the simulator computes
 *   the exact result and rounds it once).
 * - On f16 and bf16, every other function is its f32 version on the
 *   arguments widened to f32, rounded back to the type (exact for the
 *   formulas, floor, ceil, trunc and sqrt, as CUDA's hsqrt and friends are).
 */
export const MATH_FUNCTIONS = Object.freeze({
  sqrt: { arity: 1, int: false, libdevice: true, jsMath: true },
  cbrt: { arity: 1, int: false, libdevice: true, jsMath: true },
  exp: { arity: 1, int: false, libdevice: true, jsMath: true },
  exp2: { arity: 1, int: false, libdevice: true, jsMath: false },
  expm1: { arity: 1, int: false, libdevice: true, jsMath: true },
  log: { arity: 1, int: false, libdevice: true, jsMath: true },
  log2: { arity: 1, int: false, libdevice: true, jsMath: true },
  log10: { arity: 1, int: false, libdevice: true, jsMath: true },
  log1p: { arity: 1, int: false, libdevice: true, jsMath: true },
  sin: { arity: 1, int: false, libdevice: true, jsMath: true },
  cos: { arity: 1, int: false, libdevice: true, jsMath: true },
  tan: { arity: 1, int: false, libdevice: true, jsMath: true },
  asin: { arity: 1, int: false, libdevice: true, jsMath: true },
  acos: { arity: 1, int: false, libdevice: true, jsMath: true },
  atan: { arity: 1, int: false, libdevice: true, jsMath: true },
  sinh: { arity: 1, int: false, libdevice: true, jsMath: true },
  cosh: { arity: 1, int: false, libdevice: true, jsMath: true },
  tanh: { arity: 1, int: false, libdevice: true, jsMath: true },
  asinh: { arity: 1, int: false, libdevice: true, jsMath: true },
  acosh: { arity: 1, int: false, libdevice: true, jsMath: true },
  atanh: { arity: 1, int: false, libdevice: true, jsMath: true },
  floor: { arity: 1, int: false, libdevice: true, jsMath: true },
  ceil: { arity: 1, int: false, libdevice: true, jsMath: true },
  trunc: { arity: 1, int: false, libdevice: true, jsMath: true },
  round: { arity: 1, int: false, libdevice: false, jsMath: false },
  atan2: { arity: 2, int: false, libdevice: true, jsMath: true },
  pow: { arity: 2, int: false, libdevice: true, jsMath: true },
  hypot: { arity: 2, int: false, libdevice: true, jsMath: true },
  fma: { arity: 3, int: false, libdevice: true, jsMath: false },
  isnan: { arity: 1, int: false, libdevice: false, jsMath: false },
  isfinite: { arity: 1, int: false, libdevice: false, jsMath: false },
  abs: { arity: 1, int: true, libdevice: false, jsMath: false },
  sign: { arity: 1, int: true, libdevice: false, jsMath: false },
  min: { arity: 2, int: true, libdevice: false, jsMath: false },
  max: { arity: 2, int: true, libdevice: false, jsMath: false },
} as const);

export type MathFunction = keyof typeof MATH_FUNCTIONS;

/**
 * Memory that a kernel declares itself (not a parameter):
 * - `shared`: one array per block (`cuda.shared.array(shape, dtype)`).
 *   Static ones have a constant shape. Dynamic ones (`shape` 0) are 1-D,
 *   all start at the same address of the launch's dynamic shared memory
 *   (they alias, as in numba), and their extent is
 *   `floor(sharedMemory bytes / element bytes)`.
 * - `local`: one array per thread (`cuda.local.array(shape, dtype)`).
 * - `const`: read-only data captured at compile time
 *   (`cuda.const.arrayLike(hostArray)`), in constant memory on the GPU.
 * Shared and local memory start zeroed in the simulator; on the GPU their
 * contents are undefined until written (as in CUDA).
 * All are compact C-order arrays.
 */
export type MemorySpace = 'shared' | 'local' | 'const';

export interface KernelMemory {
  readonly space: MemorySpace;
  /** The variable's name, for messages and symbols. */
  readonly name: string;
  readonly dtype: ScalarName;
  /** Extents in C order; `[0]` for a dynamic shared array. */
  readonly shape: readonly number[];
  /** A dynamic shared array (sized by the launch). */
  readonly dynamic: boolean;
  /** A `const` array's elements in C order (bigint for i64/u64, boolean for bool). */
  readonly data?: readonly (number | bigint | boolean)[];
}

/**
 * An element address. Without `space`, `array` is the index of an array
 * parameter in `params`; with `space`, it is the index in `memories`
 * (whose entry has that space).
 */
export interface ElementRef {
  readonly array: number;
  readonly space?: MemorySpace;
  /** One index per dimension, each of type i64 (already converted). */
  readonly indices: readonly Expr[];
}

/**
 * Atomic read-modify-write operations, one row each in
 * intrinsics/atomics.ts (its element types, its formula and its NVVM and
 * simulator forms); each gives the element's old value. With `old` the
 * element and `v` the value (both of the element's type):
 * - `add`, `sub`: `old + v`, `old - v` (wrapping for integers; floats round to the type).
 *   `add` also on f16 (PTX `atom.add.noftz.f16`, sm_70+) and bf16 (`atom.add.noftz.bf16`, sm_90+).
 * - `min`, `max`: by the `min`/`max` formulas of {@link MATH_FUNCTIONS}.
 * - `and`, `or`, `xor`: bitwise (integers only).
 * - `exch`: `v`.
 * - `inc`: `old >= v ? 0 : old + 1`; `dec`: `old == 0 || old > v ? v : old - 1` (u32, u64 only).
 * - `cas`: `old == compare ? v : old` (integers only).
 * Types: {@link ATOMIC_TYPES}. The element is in a parameter array (global
 * memory) or a shared or local array, never a `const` one.
 */
export type { AtomicFunction };

/** The element types of each atomic (its row's `types`). */
export const ATOMIC_TYPES: Readonly<Record<AtomicFunction, readonly ScalarName[]>> = Object.freeze(
  Object.fromEntries(Object.entries(ATOMIC_FUNCTIONS).map(([fn, row]) => [fn, row.types])) as Record<
    AtomicFunction,
    readonly ScalarName[]
  >,
);

/**
 * Warp shuffles (`shfl.sync`), one row each in intrinsics/warp-shuffles.ts: each lane of `mask` gives `value` and gets the
 * value of a source lane, within segments of `width` lanes (a power of two
 * up to 32): `idx` from lane `lane` of its segment, `up` from `laneid - lane`,
 * `down` from `laneid + lane`, `xor` from `laneid ^ lane`. A source outside
 * the segment gives the lane its own value. 64-bit values shuffle as two halves.
 */
export type ShuffleMode = WarpShuffleMode;
/** 32- and 64-bit integers and floats. */
export const SHUFFLE_TYPES: readonly ScalarName[] = Object.freeze(['i32', 'u32', 'i64', 'u64', 'f32', 'f64']);

/**
 * Votes over a predicate (bool).
 * - scope `warp`, over the lanes of `mask`, one row each in intrinsics/warp-votes.ts: `all`, `any`, `eq` (all equal) give bool; `ballot` gives u32 (bit k: lane k's predicate).
 * - scope `block` (`syncthreads_count/and/or`: also a block barrier): `count` gives i32, `and` and `or` give bool.
 */
export type VoteMode = WarpVoteMode | 'count' | 'and' | 'or';

/** The warp votes', matches' and shuffles' modes, the mma shapes and the packers' half types (intrinsics/warp-votes.ts, warp-matches.ts, warp-shuffles.ts, mma.ts, packs.ts). */
export type { WarpVoteMode, WarpMatchMode, WarpShuffleMode, MmaShape, PackTo };

/**
 * Lane masks (u32), one row each in intrinsics/lane-masks.ts: `activemask` the lanes now executing together;
 * `lt`, `le`, `eq`, `ge`, `gt` the lanes below, up to, equal to, from, above this lane (`%lanemask_*`).
 */
export type { LaneMask };

/** A timer (intrinsics/timers.ts) and a fence's scope (intrinsics/fences.ts), as the `timer` and `fence` nodes name them. */
export type { TimerName, FenceScope };

/**
 * Bit functions of integers, one row each in intrinsics/bits.ts (its
 * argument types, result type, NVVM and simulator forms): `popc` (set bits,
 * i32), `clz` (leading zeros, i32), `ffs` (1-based position of the lowest set
 * bit, 0 for 0; i32), `brev` (bits reversed, of argType).
 */
export type { BitFunction };

/**
 * An argument of a call of linked code (see {@link ExternalCall}):
 * - `value`: a scalar, already converted to the declared argument type
 *   (`value.type` is that type);
 * - `pointer`: an array (`array` and `space` as in {@link ElementRef}),
 *   passed as a pointer to its element 0 in the generic address space (`T*`
 *   of its dtype; bool elements are bytes, so `bool*` is `i8*`). The function
 *   may write through it, except for a read-only array (a read-only
 *   parameter, a `const` array), whose elements it must only read.
 */
export type CallArgument =
  | { readonly kind: 'value'; readonly value: Expr }
  | { readonly kind: 'pointer'; readonly array: number; readonly space?: MemorySpace };

/**
 * A device function that linked code defines (`declareDevice`), as a kernel
 * calls it: by `symbol`, with C's ABI for the declared types
 * (`extern "C" __device__`): bool is C's `bool` (`zeroext i1` in NVVM IR,
 * as clang passes it), i8 and i16 are sign-extended and u8 and u16
 * zero-extended (`signext`/`zeroext`), the other scalars are passed as they
 * are, arrays as `T*` (see {@link CallArgument}). One entry per declaration;
 * two declarations of one symbol have the same signature (the typer checks),
 * so the module declares each symbol once.
 *
 * `link` and `simulate` are the declaration's own (references, not plain
 * data, as a Loc's `locator` is): the compile stage links `link` with the
 * kernel, the simulator calls `simulate` in place of the function.
 */
export interface ExternalCall {
  /** The function's symbol in PTX (a C identifier; not the kernel's). */
  readonly symbol: string;
  /** The declared argument types: a scalar takes a `value` argument, an array type a `pointer` argument (of its dtype and ndim). */
  readonly args: readonly JitType[];
  readonly returns: ScalarName;
  /** The code that defines the function: linked into the kernel's cubin. */
  readonly link: readonly LinkInput[];
  /**
   * The simulator's stand-in, called once per call with the arguments in
   * order: bool as a boolean, i64 and u64 as bigints, the other scalars as
   * numbers; an array as a typed array of its elements (Uint8Array for bool)
   * that starts at its element 0, so that `p[k]` is C's `p[k]` (elements
   * before element 0, as views with negative strides have, are out of its
   * reach). Its result becomes `returns` as `convert` does from f64 (a
   * number), from i64 (a bigint, wrapping) or from bool (a boolean). Without
   * it the simulator fails where a thread reaches the call. (Its accesses of
   * shared memory are not seen by the simulator's race checks.)
   */
  readonly simulate?: (...args: never[]) => unknown;
}

export type Expr =
  /** A constant of `type` (bigint for i64/u64, boolean for bool, number otherwise; already in range). */
  | { readonly op: 'const'; readonly type: ScalarName; readonly value: number | bigint | boolean; readonly loc?: Loc }
  /** Reads a local variable (scalar parameters are locals too). */
  | { readonly op: 'local'; readonly type: ScalarName; readonly id: number; readonly loc?: Loc }
  /** Writes a local; its value is the expression's value. `value.type === type`. */
  | { readonly op: 'assign'; readonly type: ScalarName; readonly id: number; readonly value: Expr; readonly loc?: Loc }
  /** `operand.type === type`; `not` is on bool only; `bitnot` on integers. */
  | {
      readonly op: 'unary';
      readonly type: ScalarName;
      readonly operator: UnaryOperator;
      readonly operand: Expr;
      readonly loc?: Loc;
    }
  /** Both operands have the result's type (shift amounts too). */
  | {
      readonly op: 'binary';
      readonly type: ScalarName;
      readonly operator: BinaryOperator;
      readonly left: Expr;
      readonly right: Expr;
      readonly loc?: Loc;
    }
  /** Result bool; both operands have `operandType`. */
  | {
      readonly op: 'compare';
      readonly type: 'bool';
      readonly operator: CompareOperator;
      readonly operandType: ScalarName;
      readonly left: Expr;
      readonly right: Expr;
      readonly loc?: Loc;
    }
  /**
   * JavaScript's `&&` / `||` on values: `and` is `truthy(left) ? right : left`,
   * `or` is `truthy(left) ? left : right`, with `right` evaluated only when
   * needed. Both operands have the result's type; truthy is `convert` to bool.
   */
  | {
      readonly op: 'logical';
      readonly type: ScalarName;
      readonly operator: 'and' | 'or';
      readonly left: Expr;
      readonly right: Expr;
      readonly loc?: Loc;
    }
  /** `test ? then : otherwise`, lazily. `test` is bool; both branches have the result's type. */
  | {
      readonly op: 'select';
      readonly type: ScalarName;
      readonly test: Expr;
      readonly then: Expr;
      readonly otherwise: Expr;
      readonly loc?: Loc;
    }
  /** A numeric conversion (rules above); `operand.type !== type`. */
  | { readonly op: 'convert'; readonly type: ScalarName; readonly operand: Expr; readonly loc?: Loc }
  /** A math function; every argument has the call's argument type `argType`. */
  | {
      readonly op: 'math';
      readonly type: ScalarName;
      readonly fn: MathFunction;
      readonly argType: ScalarName;
      readonly args: readonly Expr[];
      readonly loc?: Loc;
    }
  /** A special register (i32). */
  | { readonly op: 'special'; readonly type: 'i32'; readonly register: SpecialRegister; readonly loc?: Loc }
  /** Reads an array element; `type` is the array's dtype. */
  | { readonly op: 'load'; readonly type: ScalarName; readonly ref: ElementRef; readonly loc?: Loc }
  /** Writes an array element; `value.type` is the array's dtype; the value is the expression's value. */
  | {
      readonly op: 'store';
      readonly type: ScalarName;
      readonly ref: ElementRef;
      readonly value: Expr;
      readonly loc?: Loc;
    }
  /** An array's extent (`shape`) or stride in elements (`stride`) along `dim`, as i64; `array` and `space` as in {@link ElementRef}. */
  | {
      readonly op: 'dim';
      readonly type: 'i64';
      readonly array: number;
      readonly space?: MemorySpace;
      readonly what: 'shape' | 'stride';
      readonly dim: number;
      readonly loc?: Loc;
    }
  /** Evaluates `effects` in order, then `value`, whose value and type it has (postfix `++`, compound stores). */
  | {
      readonly op: 'sequence';
      readonly type: ScalarName;
      readonly effects: readonly Expr[];
      readonly value: Expr;
      readonly loc?: Loc;
    }
  /** An atomic on an element (see {@link AtomicFunction}); `type` is the element's, as are `value` and `compare` (`cas` only). Gives the old value. */
  | {
      readonly op: 'atomic';
      readonly type: ScalarName;
      readonly fn: AtomicFunction;
      readonly ref: ElementRef;
      readonly value: Expr;
      readonly compare?: Expr;
      readonly loc?: Loc;
    }
  /** A warp shuffle (see {@link ShuffleMode}): `mask` u32, `value` of `type`, `lane` and `width` i32. */
  | {
      readonly op: 'shuffle';
      readonly type: ScalarName;
      readonly mode: ShuffleMode;
      readonly mask: Expr;
      readonly value: Expr;
      readonly lane: Expr;
      readonly width: Expr;
      readonly loc?: Loc;
    }
  /** A vote (see {@link VoteMode}); `mask` (u32) for scope `warp` only; `predicate` bool. */
  | {
      readonly op: 'vote';
      readonly type: 'bool' | 'u32' | 'i32';
      readonly scope: 'warp' | 'block';
      readonly mode: VoteMode;
      readonly mask?: Expr;
      readonly predicate: Expr;
      readonly loc?: Loc;
    }
  /**
   * `match.sync` over the lanes of `mask` (u32), comparing `value` (of `valueType`: 32/64-bit ints and floats, by bits):
   * `any` gives the lanes whose value equals this lane's; `all` gives `mask` if every lane's value is equal, else 0. Type u32.
   */
  | {
      readonly op: 'match';
      readonly type: 'u32';
      readonly mode: WarpMatchMode;
      readonly mask: Expr;
      readonly value: Expr;
      readonly valueType: ScalarName;
      readonly loc?: Loc;
    }
  /**
   * A warp's matrix multiply-accumulate (a row of intrinsics/mma.ts, keyed by
   * `shape`): all 32 lanes together compute D = A × B + C from their
   * fragments `a`, `b`, `c` (the registers, in order, as the row's fragments
   * say), and each lane stores its D fragment into `d` (one element each).
   * A statement: its value is the i32 0.
   */
  | {
      readonly op: 'mma';
      readonly type: 'i32';
      readonly shape: MmaShape;
      readonly a: readonly Expr[];
      readonly b: readonly Expr[];
      readonly c: readonly Expr[];
      readonly d: readonly ElementRef[];
      readonly loc?: Loc;
    }
  /** Two f32 values (`lo`, `hi`) rounded to `to` and packed in a u32, `lo` in the lower half (a row of intrinsics/packs.ts). */
  | {
      readonly op: 'pack';
      readonly type: 'u32';
      readonly to: PackTo;
      readonly lo: Expr;
      readonly hi: Expr;
      readonly loc?: Loc;
    }
  /** A lane mask (see {@link LaneMask}), u32. */
  | { readonly op: 'lanemask'; readonly type: 'u32'; readonly which: LaneMask; readonly loc?: Loc }
  /** A bit function (see {@link BitFunction}) of `arg` (of `argType`). */
  | {
      readonly op: 'bits';
      readonly type: ScalarName;
      readonly fn: BitFunction;
      readonly argType: ScalarName;
      readonly arg: Expr;
      readonly loc?: Loc;
    }
  /** A u64 counter, a row of intrinsics/timers.ts: `clock64` (the SM's cycle counter; the simulator counts nanoseconds) or `globaltimer` (nanoseconds). */
  | { readonly op: 'timer'; readonly type: 'u64'; readonly which: TimerName; readonly loc?: Loc }
  /**
   * A device function's call, inlined: runs `body`, in which the callee's
   * locals are locals of the kernel and its `return v` became
   * `result = v; break` out of a block of `body`; then has the value of local
   * `result` (of `type`). `name` is the device function's, for messages.
   */
  | {
      readonly op: 'inline';
      readonly type: ScalarName;
      readonly name: string;
      readonly body: readonly Stmt[];
      readonly result: number;
      readonly loc?: Loc;
    }
  /**
   * A call of a recursive device function: `function` indexes the kernel's
   * `functions`; `args` (evaluated in order) have its parameters' types. Of
   * `type` the function's `returns`; a function that returns nothing
   * (`returns` undefined) is called as a statement only, and the call's
   * value is then the i32 0 (`type` i32).
   */
  | {
      readonly op: 'invoke';
      readonly type: ScalarName;
      readonly function: number;
      readonly args: readonly Expr[];
      readonly loc?: Loc;
    }
  /**
   * A call of linked code: `external` indexes the kernel's `externals`, whose
   * entry has this `symbol`; `args` match its declared argument types and
   * are evaluated in order; `type` is its declared result type.
   */
  | {
      readonly op: 'call';
      readonly type: ScalarName;
      readonly symbol: string;
      readonly external: number;
      readonly args: readonly CallArgument[];
      readonly loc?: Loc;
    };

export type ExprOp = Expr['op'];

export type Stmt =
  | { readonly op: 'expr'; readonly expr: Expr; readonly loc?: Loc }
  | {
      readonly op: 'if';
      readonly test: Expr;
      readonly then: readonly Stmt[];
      readonly otherwise: readonly Stmt[];
      readonly loc?: Loc;
    }
  /**
   * Every loop: `for (; test; update) body`, `while (test) body`, and
   * `do body while (postTest)`. A missing `test` is true. `continue` runs
   * `update` (then `postTest` / `test`); `break` leaves the loop.
   * `id` is what `break` and `continue` name.
   */
  | {
      readonly op: 'loop';
      readonly id: number;
      readonly test: Expr | undefined;
      readonly body: readonly Stmt[];
      readonly update: readonly Stmt[];
      readonly postTest: Expr | undefined;
      readonly loc?: Loc;
    }
  /** A labelled block that `break` may leave (`label: { ... break label; }`). */
  | { readonly op: 'block'; readonly id: number; readonly body: readonly Stmt[]; readonly loc?: Loc }
  | { readonly op: 'break'; readonly target: number; readonly loc?: Loc }
  /** `target` is always a loop. */
  | { readonly op: 'continue'; readonly target: number; readonly loc?: Loc }
  | { readonly op: 'return'; readonly loc?: Loc }
  /**
   * A barrier. `block` (`cuda.syncthreads()`): every thread of the block
   * reaches it before any passes, and memory writes before it are seen after
   * it by the block. `warp` (`cuda.syncwarp(mask)`): the lanes of `mask` (u32).
   * `grid` (`cuda.cg.thisGrid().sync()`): every thread of the grid; the kernel
   * is then launched cooperatively.
   */
  | { readonly op: 'barrier'; readonly scope: 'block' | 'warp' | 'grid'; readonly mask?: Expr; readonly loc?: Loc }
  /** A memory fence, a row of intrinsics/fences.ts: `block` (`threadfence_block`), `device` (`threadfence`), `system` (`threadfence_system`). */
  | { readonly op: 'fence'; readonly scope: FenceScope; readonly loc?: Loc }
  /** `cuda.nanosleep(ns)`: `nanoseconds` is u32. The simulator does not sleep. */
  | { readonly op: 'sleep'; readonly nanoseconds: Expr; readonly loc?: Loc }
  /**
   * Prints one line from the thread (`console.log`, `cuda.printf`): `format`
   * is a C printf format whose conversions match the args' types (`%d` i32,
   * `%u` u32, `%lld` i64, `%llu` u64, `%f`/`%g`/`%e` f64 — f32 args are converted
   * to f64 by the typer, bool to i32). The GPU prints through vprintf when the
   * launch ends; the simulator prints at once.
   */
  | { readonly op: 'print'; readonly format: string; readonly args: readonly Expr[]; readonly loc?: Loc };

export type StmtOp = Stmt['op'];

/** What the kernel receives for one array parameter, beyond its data pointer. */
export interface ArrayUse {
  /** The extents are passed (ndim i64 values): used by `length`/`shape`, or needed to index a C/F array of 2+ dimensions. */
  readonly shape: boolean;
  /** The strides in elements are passed (ndim i64 values): needed to index an 'A' array. */
  readonly strides: boolean;
  /** The kernel writes elements. */
  readonly written: boolean;
}

export type KernelParam =
  | {
      readonly kind: 'scalar';
      readonly name: string;
      readonly type: ScalarName /** the local that holds it */;
      readonly local: number;
    }
  | { readonly kind: 'array'; readonly name: string; readonly type: ArrayType; readonly use: ArrayUse };

export interface LocalVariable {
  readonly name: string;
  readonly type: ScalarName;
}

/**
 * One kernel specialized for one signature.
 *
 * The ABI (the GPU kernel's parameter list), in order, per parameter:
 * a scalar is one value of its type (bool as i8); an array is its data
 * pointer (to the dtype), then `ndim` i64 extents if `use.shape`, then
 * `ndim` i64 strides in elements if `use.strides`.
 *
 * Element offsets: 'C' layout `((i0 * s1) + i1) * s2 + i2` (s = extents),
 * 'F' layout `i0 + s0 * (i1 + s1 * i2)`, 'A' layout `Σ ik * stride_k`; a 1-D
 * 'C' array is `i0`.
 */
export interface TypedKernel {
  /** The symbol of the kernel in NVVM IR and PTX (a valid C identifier). */
  readonly symbol: string;
  readonly params: readonly KernelParam[];
  /** Every local variable, by id (parameters first). */
  readonly locals: readonly LocalVariable[];
  /** Shared, local and const arrays, which `ElementRef`s with a `space` index. */
  readonly memories: readonly KernelMemory[];
  /** The linked device functions that `call` expressions index (empty for a kernel that calls none). */
  readonly externals: readonly ExternalCall[];
  /** The recursive device functions that `invoke` expressions index (absent or empty for a kernel that calls none). */
  readonly functions?: readonly TypedFunction[];
  /** Which collective operations the kernel uses (the simulator runs such kernels thread by thread in lockstep; `grid` makes the launch cooperative). */
  readonly collectives: KernelCollectives;
  readonly body: readonly Stmt[];
}

/**
 * A recursive device function (one that calls itself, directly or through
 * others), specialized for one list of parameter types: a function of its
 * own on both backends, not inlined. Its locals are kernel locals by id
 * (`locals` lists them, `params` and `result` among them), but each call
 * has its own copies of them. The body reads no other local, uses only
 * scalars (no arrays, no kernel memories) and no collectives; its returns
 * became `result = v; break` out of a block of `body`, so the function
 * returns the value of `result` (nothing where `returns` is undefined) when
 * its body ends.
 */
export interface TypedFunction {
  /** Its symbol in NVVM IR and PTX (the kernel's, `$`, the function's name, `$`, its index). */
  readonly symbol: string;
  /** The device function's name, for messages. */
  readonly name: string;
  /** The locals that hold the parameters, in order. */
  readonly params: readonly number[];
  /** Every local of the function (parameters and result included). */
  readonly locals: readonly number[];
  /** The local it returns, of type `returns`; undefined when it returns nothing. */
  readonly result: number | undefined;
  readonly returns: ScalarName | undefined;
  readonly body: readonly Stmt[];
  /** The function's definition, for messages (the simulator's recursion bound). */
  readonly loc?: Loc;
}

export interface KernelCollectives {
  /** Block barriers or block votes. */
  readonly block: boolean;
  /** `syncwarp`, shuffles, warp votes, `match`, `activemask`. */
  readonly warp: boolean;
  /** A grid barrier. */
  readonly grid: boolean;
}

export const NO_COLLECTIVES: KernelCollectives = Object.freeze({ block: false, warp: false, grid: false });
