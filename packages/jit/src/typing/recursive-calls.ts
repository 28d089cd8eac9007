/**
 * Calls of recursive device functions: a `jit.device` function that calls
 * itself, directly or through other device functions (numba's recursion).
 * Such a function cannot be inlined; it becomes a function of the typed IR
 * (a {@link TypedFunction}) per list of parameter types, and each call an
 * `invoke` expression.
 *
 * - Whether a device function is recursive is decided from its text before
 *   it is typed: it is when one of the device functions that it names in a
 *   call (through its `constants`) reaches it again.
 * - Arguments are scalars, evaluated in the caller in order; a parameter
 *   takes the argument's type (a literal its default type). Each list of
 *   types is one specialization, typed once per round of inference where
 *   it is first called.
 * - The return type is the `returns` option where given (every returned
 *   value is converted to it), else inferred as numba does: the result is a
 *   variable that joins what is returned, and a call that reaches the
 *   function while its type is still unknown reads as an integer literal
 *   that adapts (the typer's rule for variables not yet typed), so the
 *   non-recursive returns decide it and the rounds settle it. If no return
 *   has a value that does not go through such a call, the type cannot be
 *   inferred: a {@link RecursionTypeError} at the recursive call.
 * - The body uses scalars only (no arrays, no kernel memories) and no
 *   barriers or other collectives: each call has its own locals.
 */
import type { ESTree } from 'meriyah';
import { deviceFunctionOf, type DeviceFunction } from '../device-function.js';
import { RecursionTypeError, type SourceLocator } from '../errors.js';
import { DeviceFunctionExit, noteCallSite } from './device-function-exit.js';
import type { ScalarName } from './jit-types.js';
import type { ValueType } from './promotion.js';
import type { Expr, Loc, Stmt, TypedFunction } from './typed-ir.js';
import type { Typed, TyperContext } from './typer-context.js';

type Call = ESTree.CallExpression;

const recursiveCache = new WeakMap<DeviceFunction, boolean>();

/** The device functions that `fn` names as callees in its text. */
function callees(fn: DeviceFunction): DeviceFunction[] {
  const found = new Set<DeviceFunction>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    const n = node as { type?: unknown; callee?: { type?: string; name?: string } };
    if (
      n.type === 'CallExpression' &&
      n.callee?.type === 'Identifier' &&
      n.callee.name !== undefined &&
      Object.hasOwn(fn.constants, n.callee.name)
    ) {
      const callee = deviceFunctionOf(fn.constants[n.callee.name]);
      if (callee) found.add(callee);
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'loc' && typeof value === 'object') walk(value);
  };
  walk(fn.parsed.body);
  return [...found];
}

/** Whether `fn` calls itself, directly or through the device functions it calls. */
export function isRecursive(fn: DeviceFunction): boolean {
  const known = recursiveCache.get(fn);
  if (known !== undefined) return known;
  const seen = new Set<DeviceFunction>();
  const stack = callees(fn);
  let found = false;
  while (stack.length > 0 && !found) {
    const next = stack.pop()!;
    if (next === fn) found = true;
    else if (!seen.has(next)) {
      seen.add(next);
      stack.push(...callees(next));
    }
  }
  recursiveCache.set(fn, found);
  return found;
}

/** One device function specialized for one list of parameter types. */
interface Specialization {
  readonly index: number;
  readonly fn: DeviceFunction;
  readonly name: string;
  readonly paramTypes: readonly ScalarName[];
  readonly declared: ScalarName | undefined;
  /** Of the latest round. */
  params: number[];
  result: number | undefined;
  body: Stmt[];
  loc: Loc | undefined;
  /** The calls typed while this function was being typed itself (its type was not known from them), with where they are. */
  backCalls: { expr: Expr; at: { locator: SourceLocator; loc: Loc } }[];
}

/**
 * The recursive functions of one kernel, kept from round to round of the
 * typer's inference (specializations are found in the same order every
 * round, so their indices are stable).
 */
export class RecursiveFunctions {
  readonly #specs: Specialization[] = [];
  readonly #byFunction = new Map<DeviceFunction, Specialization[]>();
  /** Typed (or being typed) in this round. */
  #typed = new Set<number>();
  readonly #inProgress = new Set<number>();

  /** Starts a round: every specialization is typed again where it is first called. */
  beginRound(): void {
    this.#typed = new Set();
  }

  /** A call of the recursive `fn`, as a value or (`statement`) as a statement. */
  call(c: TyperContext, fn: DeviceFunction, call: Call, statement: boolean): Typed {
    const name = fn.name || (call.callee as ESTree.Identifier).name;
    const { params } = fn.parsed;
    if (call.arguments.length !== params.length) {
      c.typeError(
        call,
        `'${name}' takes ${params.length} argument(s) (${params.join(', ')}), ${call.arguments.length} given`,
      );
    }
    const args = call.arguments.map((node) => {
      if (c.arrayOf(node))
        c.typeError(
          node,
          `'${name}' is a recursive device function: it takes scalar arguments only, not arrays (a recursive function is a function of its own, not inlined)`,
        );
      return c.expression(node);
    });
    const types = args.map((a) => c.concrete(a));
    const spec = this.#specialization(fn, name, types);
    if (!this.#typed.has(spec.index)) this.#typeBody(c, spec, call);
    const expr: Expr = {
      op: 'invoke',
      type: 'i32',
      function: spec.index,
      args: args.map((a, i) => c.to(a, types[i]!, call.arguments[i]!)),
      loc: c.loc(call),
    };
    const inProgress = this.#inProgress.has(spec.index);
    if (spec.result === undefined && (!inProgress || c.emitting())) {
      // it returns no value: a statement only
      if (!statement) c.typeError(call, `'${name}' returns no value; call it as a statement`);
      return { expr, type: 'i32' };
    }
    let type: ValueType;
    if (spec.declared !== undefined) type = spec.declared;
    else if (spec.result === undefined) type = 'int-literal';
    else type = c.readLocal(spec.result, call).type;
    const final: Expr = {
      ...expr,
      type: type === 'int-literal' || type === 'float-literal' ? (type === 'int-literal' ? 'i32' : 'f64') : type,
    };
    if (inProgress && spec.declared === undefined) spec.backCalls.push({ expr: final, at: c.at(call) });
    return type === 'int-literal' ? { expr: final, type: 'int-literal', value: 0 } : { expr: final, type: final.type };
  }

  #specialization(fn: DeviceFunction, name: string, types: readonly ScalarName[]): Specialization {
    const list = this.#byFunction.get(fn) ?? [];
    this.#byFunction.set(fn, list);
    const found = list.find((s) => s.paramTypes.every((t, i) => t === types[i]));
    if (found) return found;
    const spec: Specialization = {
      index: this.#specs.length,
      fn,
      name,
      paramTypes: types,
      declared: fn.returns,
      params: [],
      result: undefined,
      body: [],
      loc: undefined,
      backCalls: [],
    };
    this.#specs.push(spec);
    list.push(spec);
    return spec;
  }

  #typeBody(c: TyperContext, spec: Specialization, call: Call): void {
    this.#typed.add(spec.index);
    this.#inProgress.add(spec.index);
    spec.backCalls = [];
    const { fn, name } = spec;
    const { params, paramNodes, body } = fn.parsed;
    const target = c.newTarget();
    const exit = new DeviceFunctionExit(c, name, target, spec.declared);
    try {
      c.functionBody(spec.index, () =>
        c.enterFunction({ device: fn, name, exit }, () => {
          spec.loc = c.loc(body);
          spec.params = params.map((p, i) => c.declareParameter(p, spec.paramTypes[i]!, paramNodes[i]!));
          const statements = exit.body(body);
          spec.body = [{ op: 'block', id: target, body: statements, loc: c.loc(body) }];
          spec.result = exit.result;
        }),
      );
    } catch (error) {
      if (!(error instanceof RecursionTypeError)) noteCallSite(c, call, name, error);
      throw error;
    } finally {
      this.#inProgress.delete(spec.index);
    }
  }

  /**
   * The functions, after the last round (`localsOf` gives the locals each
   * owns); refuses a function whose return type could not be inferred.
   */
  finish(
    kernelSymbol: string,
    localsOf: (index: number) => number[],
    localType: (id: number) => ScalarName,
  ): TypedFunction[] {
    return this.#specs.map((spec) => {
      if (spec.declared === undefined && spec.result !== undefined) checkInferable(spec);
      const symbolName = (spec.fn.name || spec.name).replace(/[^A-Za-z0-9_]/g, '_');
      return {
        symbol: `${kernelSymbol}$${symbolName}$${spec.index}`,
        name: spec.name,
        params: spec.params,
        locals: localsOf(spec.index),
        result: spec.result,
        returns: spec.result === undefined ? undefined : localType(spec.result),
        body: spec.body,
        ...(spec.loc ? { loc: spec.loc } : {}),
      };
    });
  }
}

/**
 * numba's rule: the return type of a recursive function comes from a
 * return whose value does not depend on a recursive call while its type is
 * being inferred (a branch of `c ? a : b`, or of `||`/`&&`, suffices).
 */
function checkInferable(spec: Specialization): void {
  if (spec.backCalls.length === 0) return;
  const back = new Set(spec.backCalls.map((b) => b.expr));
  const decided = (e: Expr): boolean => {
    switch (e.op) {
      case 'invoke':
        return !back.has(e) && e.args.every(decided);
      case 'select':
        return decided(e.then) || decided(e.otherwise);
      case 'logical':
        return decided(e.left) || decided(e.right);
      case 'compare':
        return true;
      case 'convert':
        return decided(e.operand);
      case 'unary':
        return decided(e.operand);
      case 'binary':
        return decided(e.left) && decided(e.right);
      case 'math':
        return e.args.every(decided);
      case 'sequence':
        return decided(e.value);
      case 'assign':
        return decided(e.value);
      default:
        return true;
    }
  };
  const returned: Expr[] = [];
  const visitStmts = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.op === 'expr' && s.expr.op === 'assign' && s.expr.id === spec.result) returned.push(s.expr.value);
      else if (s.op === 'if') {
        visitStmts(s.then);
        visitStmts(s.otherwise);
      } else if (s.op === 'loop') visitStmts(s.body);
      else if (s.op === 'block') visitStmts(s.body);
    }
  };
  visitStmts(spec.body);
  if (returned.some(decided)) return;
  const first = spec.backCalls[0]!;
  throw new RecursionTypeError(
    `the return type of the recursive device function '${spec.name}' cannot be inferred: each of its returns goes through a recursive call; give it a return that does not (a base case such as 'if (n < 2) return n;'), or declare the type: jit.device(fn, { returns: f64 })`,
    first.at,
  );
}
