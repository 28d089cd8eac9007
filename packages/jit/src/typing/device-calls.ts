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
import type { ArrayView } from './array-bindings.js';
import { DeviceFunctionExit, noteCallSite } from './device-function-exit.js';
import type { Stmt } from './typed-ir.js';
import { literalValue, typed, type Typed, type TyperContext } from './typer-context.js';

type Call = ESTree.CallExpression;

type Argument = { readonly view: ArrayView } | { readonly value: Typed };

/** The block that runs the call, and the local that holds its result (undefined: it returns nothing). */
function expand(
  c: TyperContext,
  fn: DeviceFunction,
  call: Call,
): { block: Stmt; result: number | undefined; name: string } {
  const name = fn.name || (call.callee as ESTree.Identifier).name;
  const chain = c.callChain();
  const first = chain.findIndex((f) => f.device === fn);
  if (first !== -1) {
    const cycle = [...chain.slice(first).map((f) => f.name), name].join(' → ');
    c.typeError(
      call,
      `the device function '${name}' calls itself (${cycle}): a recursion that recursive-calls.ts did not find ahead (call it by a name in its constants)`,
    );
  }
  const { params, paramNodes, body } = fn.parsed;
  if (call.arguments.length !== params.length) {
    c.typeError(
      call,
      `'${name}' takes ${params.length} argument(s) (${params.join(', ')}), ${call.arguments.length} given`,
    );
  }
  // the arguments, in the caller's scope, in order
  const args: Argument[] = call.arguments.map((node) => {
    const view = c.arrayOf(node);
    return view ? { view } : { value: c.expression(node) };
  });
  const target = c.newTarget();
  const exit = new DeviceFunctionExit(c, name, target);
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
        const value =
          literalValue(arg.value) === undefined
            ? arg.value
            : typed(c.to(arg.value, c.concrete(arg.value), paramNodes[i]!));
        const id = c.declareLocal(name);
        out.push({ op: 'expr', expr: c.assignLocal(id, value, paramNodes[i]!), loc: c.loc(paramNodes[i]!) });
      });
      return [...out, ...exit.body(body)];
    });
  } catch (error) {
    noteCallSite(c, call, name, error);
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
