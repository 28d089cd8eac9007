/**
 * Where the `return`s of a device function's body go, for both ways a call
 * is typed (inlined by device-calls.ts, a function of its own by
 * recursive-calls.ts): `return v` assigns the result local (converted to the
 * declared return type where there is one), then every return leaves the
 * body's block. Every return gives a value, or none does; a body that
 * returns a value must not end without a return.
 */
import type { ESTree } from 'meriyah';
import { JitError } from '../errors.js';
import { alwaysReturns } from './always-returns.js';
import type { ScalarName } from './jit-types.js';
import type { Stmt } from './typed-ir.js';
import { typed, type FunctionExit, type Node, type TyperContext } from './typer-context.js';

export class DeviceFunctionExit implements FunctionExit {
  /** The local that `return v` assigns, declared at the first such return (undefined: the function returns nothing). */
  result: number | undefined;
  #valueReturns = false;
  #bareReturns = false;

  constructor(
    readonly c: TyperContext,
    /** The function's name in messages. */
    readonly name: string,
    /** The block that a return leaves. */
    readonly target: number,
    /** The return type the function declares (every returned value is converted to it); undefined: the join of the returned values. */
    readonly declared?: ScalarName,
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
    const returned = this.declared === undefined ? v : typed(this.c.to(v, this.declared, value));
    this.result ??= this.c.hiddenLocal(`${this.name}$result`);
    const loc = this.c.loc(node);
    return [
      { op: 'expr', expr: this.c.assignLocal(this.result, returned, value), loc },
      { op: 'break', target: this.target, loc },
    ];
  }

  /** The statements of the function's body: a block's, or an arrow function's expression returned. */
  body(body: ESTree.BlockStatement | ESTree.Expression): Stmt[] {
    if (body.type !== 'BlockStatement') return this.returnValue(body, body);
    const statements = this.c.statements(body.body);
    if (this.result !== undefined && !alwaysReturns(body)) {
      const end = body.end ?? 0;
      this.c.typeError(
        { ...body, start: Math.max(0, end - 1), end },
        `'${this.name}' returns a value, but can end without a return here: end it with one`,
      );
    }
    return statements;
  }

  #mixed(node: Node): never {
    return this.c.typeError(
      node,
      `'${this.name}' returns a value elsewhere: every return of a device function gives a value, or none does`,
    );
  }
}

/** Adds to an error raised inside a device function's body the call that reached it (once: a recursion passes it up through each frame). */
export function noteCallSite(c: TyperContext, call: ESTree.CallExpression, name: string, error: unknown): void {
  if (!(error instanceof JitError)) return;
  const note = `(in the device function '${name}'`;
  if (error.message.includes(note)) return;
  const at = c.at(call);
  const p = at.locator.position(at.loc);
  error.message += `\n    ${note}, called at ${p.file}:${p.line}:${p.column})`;
}
