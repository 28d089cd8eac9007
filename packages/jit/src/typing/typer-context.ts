/**
 * The small interface that the kernel typer (type-kernel.ts) gives the
 * modules that type one kind of construct each: cuda.* intrinsics
 * (cuda-calls.ts), atomics, printing, kernel memories and device-function
 * calls. They type their arguments and build typed IR through it, and
 * never see the typer's state.
 */
import type { ESTree } from 'meriyah';
import type { DeviceFunction, KernelConstant } from '../device-function.js';
import type { SourceLocator } from '../errors.js';
import type { ArrayView } from './array-bindings.js';
import { bitsOf, isInteger, isSigned, type ScalarName } from './jit-types.js';
import type { ValueType } from './promotion.js';
import type { ElementRef, Expr, KernelCollectives, Loc, MathFunction, Stmt } from './typed-ir.js';

export type Node = ESTree.Node;

/** A typed expression before its type is fixed by its use: a literal keeps its value and adapts. */
export interface Typed {
  readonly expr: Expr;
  readonly type: ValueType;
  /** The value of a literal (int-literal / float-literal). */
  readonly value?: number;
}

export const isLiteralType = (t: ValueType): t is 'int-literal' | 'float-literal' =>
  t === 'int-literal' || t === 'float-literal';

/** An expression whose type is its IR type. */
export const typed = (expr: Expr): Typed => ({ expr, type: expr.type });

/**
 * The value of a literal written in the code or a constant (a folded
 * literal operation too), or undefined; not a variable that merely reads as
 * a literal while its type is being inferred.
 */
export function literalValue(t: Typed): number | undefined {
  return isLiteralType(t.type) && t.expr.op === 'const' ? t.value : undefined;
}

/** An integer value (`what` names it in the message), converted to `target`. */
/**
 * Whether an f64 value is a whole number by how it is made: plain number
 * arguments (f64 scalar parameters, read as they came), integers widened to
 * f64, whole f64 constants, and +, - and * of such values. An index of that
 * kind is accepted (README: a plain `number` argument as an index), and
 * converted as every float to integer conversion is, on both backends.
 */
function wholeByConstruction(c: TyperContext, e: Expr): boolean {
  switch (e.op) {
    case 'local':
      return c.isScalarParameter(e.id);
    case 'const':
      return typeof e.value === 'number' && Number.isInteger(e.value);
    case 'convert':
      return isInteger(e.operand.type);
    case 'unary':
      return e.operator === 'neg' && wholeByConstruction(c, e.operand);
    case 'binary':
      return (
        (e.operator === 'add' || e.operator === 'sub' || e.operator === 'mul') &&
        wholeByConstruction(c, e.left) &&
        wholeByConstruction(c, e.right)
      );
    default:
      return false;
  }
}

export function integerOf(c: TyperContext, t: Typed, node: Node, target: ScalarName, what: string): Expr {
  if (t.type === 'f64' && what === 'an index' && wholeByConstruction(c, t.expr)) return c.to(t, target, node);
  if (t.type === 'float-literal' || (!isLiteralType(t.type) && !isInteger(t.type))) {
    c.typeError(
      node,
      `${what} must be an integer, got ${t.type === 'float-literal' ? 'a float literal' : t.type}${t.type === 'f64' ? ' (a plain JS number is f64: a number argument itself, +, - and * of numbers and integers, and Math.floor/trunc/ceil/round of an integer quotient are accepted as indices; else write cuda.i32(...) here)' : ''}`,
    );
  }
  if (isLiteralType(t.type) && t.value !== undefined && !integerLiteralFits(t.value, target)) {
    // a literal index of 2**64 or 1e300 wrapped to 0 and wrote a[0]
    c.typeError(node, `${what} ${t.value} is outside ${target}'s range`);
  }
  return c.to(t, target, node);
}

/**
 * Whether the integer literal `value` converts to the 64-bit integer type
 * `target` without wrapping: i64 takes [-2^63, 2^63), u64 [-2^63, 2^64) (-1
 * as all ones is an idiom). Narrower types keep C's wrap of a literal (a lane
 * mask of -1), as they always did.
 */
function integerLiteralFits(value: number, target: ScalarName): boolean {
  if (!isInteger(target) || bitsOf(target) !== 64) return true;
  if (!Number.isFinite(value)) return false;
  const v = BigInt(value);
  return v >= -(1n << 63n) && v < (isSigned(target) ? 1n << 63n : 1n << 64n);
}

/** An integer argument, converted to `target`. */
export const integerArgument = (c: TyperContext, node: Node, target: ScalarName, what: string): Expr =>
  integerOf(c, c.expression(node), node, target, what);

/** A string literal node's text, or undefined. */
export function stringLiteral(node: Node): string | undefined {
  return node.type === 'Literal' && typeof (node as ESTree.Literal).value === 'string'
    ? ((node as ESTree.Literal).value as string)
    : undefined;
}

/** What `return` becomes in the function being typed (a device function's inlined body). */
export interface FunctionExit {
  returnStatement(node: ESTree.ReturnStatement): Stmt[];
}

/** A device function's body being typed inline: its text, its constants, where its `return`s go. */
export interface InlineFrame {
  readonly device: DeviceFunction;
  /** Its name in messages: its own, else the name it is called by. */
  readonly name: string;
  readonly exit: FunctionExit;
}

export interface TyperContext {
  // ---- positions and errors ----
  /** The node's Loc (with the device function's locator inside an inlined body). */
  loc(node: Node): Loc;
  /** Where an error about the node points. */
  at(node: Node): { readonly locator: SourceLocator; readonly loc: Loc };
  typeError(node: Node, message: string): never;

  // ---- values ----
  expression(node: Node): Typed;
  /** `t` as a value of `target`: a literal is made in that type, anything else converted. */
  to(t: Typed, target: ScalarName, node: Node): Expr;
  /** JavaScript's truthiness, as a bool. */
  truthy(t: Typed, node: Node): Expr;
  /** The type a value has where nothing else decides (a literal's default type). */
  concrete(t: Typed): ScalarName;
  math(fn: MathFunction, args: readonly Node[], node: Node): Typed;
  /** `test ? a : b` with the common type of `a` and `b`. */
  select(test: Expr, a: Typed, b: Typed, node: Node, aNode: Node, bNode: Node): Typed;

  // ---- names ----
  /** The global a node names (`f32`, `cuda`, `console`), through namespace objects; undefined for locals and constants. */
  globalName(node: Node): string | undefined;
  /** The constant a free name has in the function being typed (undefined if the name is bound in a scope, or not a constant). */
  constant(name: string): KernelConstant | undefined;
  /** The scalar type a dtype token names: a scalar maker (`f32`, `ns.f32`) or a constant that is one; else undefined. */
  dtypeOf(node: Node): ScalarName | undefined;

  // ---- arrays ----
  /** The array a node names (a parameter, a memory, a device function's array parameter), or undefined. */
  arrayOf(node: Node): ArrayView | undefined;
  /** The element of `view` at `indices` (converted to i64); records what the kernel needs of the array. */
  elementRef(view: ArrayView, indices: readonly Node[], at: Node): ElementRef;
  /** Records that the kernel writes elements of `view` (an array parameter's `use.written`). */
  markWritten(view: ArrayView): void;
  /** An access typed once per array that `view` may be (an array held in a variable), chosen at run time; `access(view)` for a plain one. */
  eachArray(view: ArrayView, node: Node, access: (one: ArrayView) => Typed): Typed;

  // ---- collectives ----
  useCollective(kind: keyof KernelCollectives): void;

  // ---- functions (device-function calls) ----
  /** A fresh id for a `block` or `loop` target. */
  newTarget(): number;
  /** A variable named `name` in the current scope. */
  declareLocal(name: string): number;
  /** A local that no name in the code reaches (temporaries, results). */
  hiddenLocal(name: string): number;
  /** Whether local `id` holds a scalar parameter of the kernel that the kernel never assigns (as it came from the launch). */
  isScalarParameter(id: number): boolean;
  assignLocal(id: number, value: Typed, node: Node): Expr;
  readLocal(id: number, node: Node): Typed;
  /** Binds `name` in the current scope to an array. */
  bindArray(name: string, view: ArrayView): void;
  /** Types `body` as the body of a device function: its own scopes, constants, jump targets, locator and returns. */
  enterFunction<T>(frame: InlineFrame, body: () => T): T;
  /** A parameter of a recursive device function (recursive-calls.ts): a local of `type` that its callers set. */
  declareParameter(name: string, type: ScalarName, node: Node): number;
  /** Types `body` as the body of recursive function `index`: the locals declared in it are its own; arrays, memories and collectives are refused. */
  functionBody<T>(index: number, body: () => T): T;
  /** Whether this is the last round, which emits the IR (types are final). */
  emitting(): boolean;
  /** The device functions being inlined, outermost first. */
  callChain(): readonly InlineFrame[];
  /** Statements, in a scope of their own. */
  statements(nodes: readonly Node[]): Stmt[];
}
