/**
 * Calls of linked device code (`declareDevice`, named in `constants`),
 * typed against the declaration:
 *
 * - The call gives as many arguments as the declaration has, evaluated in
 *   order. A scalar argument converts to the declared scalar type as a value
 *   stored to an array element does (a literal is made in that type); an
 *   array argument (a parameter or a memory) must be an array of the
 *   declared dtype and ndim, and is passed as a pointer to its element 0.
 *   The function may write through the pointer, so a writable array
 *   parameter counts as written (a read-only one, or a const array, is
 *   passed for reading only).
 * - The value is of the declared result type; as a statement it is dropped.
 * - Each declaration is one entry of the kernel's `externals`; two
 *   declarations of one symbol must have the same signature, and no
 *   declaration may take the kernel's own symbol.
 */
import type { ESTree } from 'meriyah';
import type { ExternalDeviceFunction } from '../external-device-function.js';
import { isArrayType, typeName } from './jit-types.js';
import type { CallArgument, ExternalCall } from './typed-ir.js';
import type { Node, Typed, TyperContext } from './typer-context.js';

/** The externals of one kernel, by declaration, in first-call order. */
export class KernelExternals {
  readonly #index = new Map<ExternalDeviceFunction, number>();
  readonly #list: ExternalCall[] = [];

  constructor(private readonly kernelSymbol: string) {}

  /** The index of `fn` in the kernel's `externals`, added at its first call. */
  indexOf(c: TyperContext, fn: ExternalDeviceFunction, name: string, node: Node): number {
    const known = this.#index.get(fn);
    if (known !== undefined) return known;
    if (fn.symbol === this.kernelSymbol)
      c.typeError(
        node,
        `'${name}' is declared as '${fn.symbol}', which is the kernel's own symbol: give the linked function another name`,
      );
    const same = this.#list.find((e) => e.symbol === fn.symbol);
    if (same && signatureText(same) !== signatureText(fn)) {
      c.typeError(
        node,
        `'${name}' declares '${fn.symbol}' as ${signatureText(fn)}, but another declaration the kernel calls has it as ${signatureText(same)}`,
      );
    }
    const entry: ExternalCall = Object.freeze({
      symbol: fn.symbol,
      args: fn.args,
      returns: fn.returns,
      link: fn.link,
      ...(fn.simulate ? { simulate: fn.simulate } : {}),
    });
    this.#list.push(entry);
    this.#index.set(fn, this.#list.length - 1);
    return this.#list.length - 1;
  }

  /** The kernel's `externals`. */
  get list(): readonly ExternalCall[] {
    return [...this.#list];
  }
}

/** `(f32, array(f32, 1, 'C')) => f32`, for messages. */
function signatureText(d: { readonly args: ExternalCall['args']; readonly returns: ExternalCall['returns'] }): string {
  return `(${d.args.map(typeName).join(', ')}) => ${d.returns}`;
}

/** A call of linked code: its arguments checked and converted, typed as the declared result. */
export function externalCall(
  c: TyperContext,
  fn: ExternalDeviceFunction,
  call: ESTree.CallExpression,
  externals: KernelExternals,
): Typed {
  const name = (call.callee as ESTree.Identifier).name;
  const declared = fn.args;
  if (call.arguments.length !== declared.length) {
    c.typeError(
      call,
      `'${name}' (linked as '${fn.symbol}') takes ${declared.length} argument(s) (${declared.map(typeName).join(', ')}), ${call.arguments.length} given`,
    );
  }
  const args: CallArgument[] = call.arguments.map((node, k): CallArgument => {
    const type = declared[k]!;
    const what = `argument ${k + 1} of '${name}'`;
    if (node.type === 'SpreadElement') return c.typeError(node, `${what}: spread arguments are not supported`);
    const view = c.arrayOf(node);
    if (isArrayType(type)) {
      if (!view)
        return c.typeError(
          node,
          `${what} is an array (${typeName(type)}, passed as a pointer to its first element): pass an array, got a value`,
        );
      if (view.dtype !== type.dtype || view.ndim !== type.ndim) {
        c.typeError(
          node,
          `${what} is an array of ${type.dtype} with ${type.ndim} dimension(s) (${typeName(type)}); '${view.name}' is ${view.description}`,
        );
      }
      if (view.mapping)
        c.typeError(
          node,
          `${what}: '${view.name}' is a view made in the kernel; linked code takes whole arrays (pass the array and the offset)`,
        );
      if (view.choice)
        c.typeError(
          node,
          `${what}: '${view.name}' holds one of several arrays (${view.description}); linked code takes an array by its own name: call it in each branch`,
        );
      if (!view.readOnly) c.markWritten(view);
      return view.space === undefined
        ? { kind: 'pointer', array: view.array }
        : { kind: 'pointer', array: view.array, space: view.space };
    }
    if (view) return c.typeError(node, `${what} is a ${type}; '${view.name}' is an array (${view.description})`);
    return { kind: 'value', value: c.to(c.expression(node), type, node) };
  });
  const external = externals.indexOf(c, fn, name, call.callee);
  return {
    expr: { op: 'call', type: fn.returns, symbol: fn.symbol, external, args, loc: c.loc(call) },
    type: fn.returns,
  };
}
