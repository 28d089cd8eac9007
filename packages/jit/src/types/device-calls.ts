/**
 * Calls of device functions (`jit.device(fn)`, named in `constants`),
 * typed at each call site with the argument types there and inlined:
 *
 * - Scalar arguments are evaluated once, in order, into fresh locals: the
 *   callee's parameters, of the arguments' types (a literal takes its
 *   default type). They are variables of the callee like any other (what
 *   it assigns to them joins their type, as numba does). Array arguments
 *   (parameters or memories) bind the parameter's name to the same array.
 * - The body is typed with the callee's own constants and positions (every
 *   Loc carries its locator), in a block that `return` leaves: `return v`
 *   assigns the result local first. The result's type is the join of the
 *   returned values'; every return gives a value, or none does.
 * - As a value the call is an `inline` expression; as a statement, the block.
 * - A device function may call others. One that calls itself, directly or
 *   not, is not inlined: recursive-calls.ts makes it a function of its own.
 */
import type { ESTree } from 'meriyah';
import type { DeviceFunction } from '../device-function.js';
import { JitError } from '../errors.js';
import { alwaysReturns } from './always-returns.js';
import type { ArrayView } from './array-bindings.js';
import type { Stmt } from './typed-ir.js';
import { literalValue, typed, type FunctionExit, type Node, type Typed, type TyperContext } from './typer-context.js';

type Call = ESTree.CallExpression;

/** Where the `return`s of one inlined call go. */
class InlineExit implements FunctionExit {
  /** The local that `return v` assigns, declared at the first such return. */
  result: number | undefined;
  #valueReturns = false;
  #bareReturns = false;

  constructor(
    readonly c: TyperContext,
    readonly name: string,
    readonly target: number,
  ) {}

  returnStatement(node: ESTree.ReturnStatement): Stmt[] {
    if (node.argument) return this.returnValue(node.argument, node);
    if (this.#valueReturns) this.#mixed(node);
    this.#bareReturns = true;
    return [{ op: 'break', target: this.target, loc: this.c.loc(node) }];
  }

  /** `return value` (also an arrow function's expression body). */
  returnValue(value: Node, node: Node): Stmt[] {
    if (this.#bareReturns) this.#mixed(node);
    this.#valueReturns = true;
    const v = this.c.expression(value);
    this.result ??= this.c.hiddenLocal(`${this.name}$result`);
    const loc = this.c.loc(node);
    return [
      { op: 'expr', expr: this.c.assignLocal(this.result, v, value), loc },
      { op: 'break', target: this.target, loc },
    ];
  }

  #mixed(node: Node): never {
    return this.c.typeError(node, `'${this.name}' returns a value elsewhere: every return of a device function gives a value, or none does`);
  }
}

type Argument = { readonly view: ArrayView } | { readonly value: Typed };

/** The block that runs the call, and the local that holds its result (undefined: it returns nothing). */
function expand(c: TyperContext, fn: DeviceFunction, call: Call): { block: Stmt; result: number | undefined; name: string } {
  const name = fn.name || (call.callee as ESTree.Identifier).name;
  const chain = c.callChain();
  const first = chain.findIndex((f) => f.device === fn);
  if (first !== -1) {
    const cycle = [...chain.slice(first).map((f) => f.name), name].join(' → ');
    c.typeError(call, `the device function '${name}' calls itself (${cycle}): a recursion that recursive-calls.ts did not find ahead (call it by a name in its constants)`);
  }
  const { params, paramNodes, body } = fn.parsed;
  if (call.arguments.length !== params.length) {
    c.typeError(call, `'${name}' takes ${params.length} argument(s) (${params.join(', ')}), ${call.arguments.length} given`);
  }
  // the arguments, in the caller's scope, in order
  const args: Argument[] = call.arguments.map((node) => {
    const view = c.arrayOf(node);
    return view ? { view } : { value: c.expression(node) };
  });
  const target = c.newTarget();
  const exit = new InlineExit(c, name, target);
  let statements: Stmt[];
  try {
    statements = c.enterFunction({ device: fn, name, exit }, () => {
      const out: Stmt[] = [];
      params.forEach((name, i) => {
        const arg = args[i]!;
        if ('view' in arg) {
          c.bindArray(name, arg.view);
          return;
        }
        // a literal argument gives the parameter the literal's default type; anything else its own type
        const value = literalValue(arg.value) === undefined ? arg.value : typed(c.to(arg.value, c.concrete(arg.value), paramNodes[i]!));
        const id = c.declareLocal(name);
        out.push({ op: 'expr', expr: c.assignLocal(id, value, paramNodes[i]!), loc: c.loc(paramNodes[i]!) });
      });
      if (body.type !== 'BlockStatement') return [...out, ...exit.returnValue(body, body)];
      out.push(...c.statements(body.body));
      if (exit.result !== undefined && !alwaysReturns(body)) {
        const end = body.end ?? 0;
        c.typeError({ ...body, start: Math.max(0, end - 1), end }, `'${name}' returns a value, but can end without a return here: end it with one`);
      }
      return out;
    });
  } catch (error) {
    if (error instanceof JitError) {
      const at = c.at(call);
      const p = at.locator.position(at.loc);
      error.message += `\n    (in the device function '${name}', called at ${p.file}:${p.line}:${p.column})`;
    }
    throw error;
  }
  return { block: { op: 'block', id: target, body: statements, loc: c.loc(call) }, result: exit.result, name };
}

/** A device function's call as a statement: its block (a result, if any, is not used). */
export function inlineStatement(c: TyperContext, fn: DeviceFunction, call: Call): Stmt {
  return expand(c, fn, call).block;
}

/** A device function's call as a value. */
export function inlineValue(c: TyperContext, fn: DeviceFunction, call: Call): Typed {
  const { block, result, name } = expand(c, fn, call);
  if (result === undefined) return c.typeError(call, `'${name}' returns no value; call it as a statement`);
  const read = c.readLocal(result, call);
  const expr = { op: 'inline', type: read.expr.type, name, body: [block], result, loc: c.loc(call) } as const;
  // while types are inferred, a result that only literals were assigned to adapts as they do
  return read.type === 'int-literal' ? { expr, type: 'int-literal' } : { expr, type: read.expr.type };
}
