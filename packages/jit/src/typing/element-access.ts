/**
 * The kernel typer's arrays (type-kernel.ts): the array a node names
 * (parameters, kernel memories, host arrays in the constants, views made
 * with subarray/row, variables that hold arrays), element references,
 * loads' and stores' indices (`a[i]`, `a.get(...)`, `a.set(...)`), extents,
 * and what the kernel needs of each array parameter (its shape, strides,
 * whether it is written).
 */
import type { ESTree } from 'meriyah';
import { elementRefOf, extentOf, memoryView, type ArrayView, type ViewMapping } from './array-bindings.js';
import { ArrayLocal, choiceView, selectorFor, selectorIs, viewsOf } from './array-locals.js';
import {
  identityMapping,
  isRereadable,
  mappingExprs,
  replaceMappingExprs,
  rowMapping,
  subarrayMapping,
  VIEW_METHODS,
} from './array-views.js';
import { typeName } from './jit-types.js';
import { capturedHostArray, isHostArray, MEMORY_MAKERS, declareMemory } from './kernel-memories.js';
import type { ElementRef, Expr, KernelMemory, Stmt } from './typed-ir.js';
import { integerOf, literalValue, typed, type Node, type Typed } from './typer-context.js';
import { constant, cudaPath, unwrapCall } from './name-resolution.js';
import { assignLocal, declare, finalType, literal, to, truthy } from './typer-scope.js';
import type { TyperState } from './typer-state.js';

/** `const s = cuda.shared.array(...)` (and local, const) and `const g = cuda.cg.thisGrid()`: names that are no variables. */
export function declaresBinding(ty: TyperState, name: string, init: Node, isConst: boolean): boolean {
  const call = unwrapCall(init);
  const path = call ? cudaPath(ty, call.callee) : undefined;
  if (!call || path === undefined) return false;
  const space = Object.hasOwn(MEMORY_MAKERS, path) ? MEMORY_MAKERS[path] : undefined;
  if (space) {
    if (!isConst) ty.typeError(init, `a ${space} array is declared with const: const ${name} = cuda.${path}(...)`);
    const memory = declareMemory(ty.context, space, name, call);
    ty.scope().set(name, { kind: 'array', view: addMemory(ty, memory, call) });
    return true;
  }
  if (path === 'cg.thisGrid') {
    if (call.arguments.length !== 0) ty.typeError(call, 'cuda.cg.thisGrid() takes no arguments');
    if (!isConst) ty.typeError(init, `the grid group is declared with const: const ${name} = cuda.cg.thisGrid()`);
    ty.scope().set(name, { kind: 'grid-group' });
    return true;
  }
  return false;
}

// ---- arrays in local variables (array-locals.ts) ---------------------------------

/**
 * The array that an expression gives, where it gives one: a name bound to
 * an array (or to a local that holds arrays), or `test ? a : b` of such
 * expressions. Gives the arrays it may be, in order, each as it is now.
 */
export function arrayValue(ty: TyperState, node: Node): readonly ArrayView[] | undefined {
  if (node.type === 'ConditionalExpression') {
    const n = node as ESTree.ConditionalExpression;
    const then = arrayValue(ty, n.consequent);
    const otherwise = arrayValue(ty, n.alternate);
    if (!then && !otherwise) return undefined;
    if (!then || !otherwise)
      ty.typeError(
        node,
        `one branch of this conditional is an array and the other is not: '${ty.text(then ? n.alternate : n.consequent)}'`,
      );
    return [...then, ...otherwise];
  }
  const view = arrayOf(ty, node);
  return view ? [view] : undefined;
}

/** The selector value of the array that `node` (an array value) gives, for the candidates of `target`. */
function arraySelector(ty: TyperState, target: ArrayLocal, node: Node): Expr {
  if (node.type === 'ConditionalExpression') {
    const n = node as ESTree.ConditionalExpression;
    const test = truthy(ty, ty.context.expression(n.test), n.test);
    return {
      op: 'select',
      type: 'i32',
      test,
      then: arraySelector(ty, target, n.consequent),
      otherwise: arraySelector(ty, target, n.alternate),
      loc: ty.loc(node),
    };
  }
  return selectorFor(target, arrayOf(ty, node)!, ty.loc(node));
}

/** `name = <array value>` (`node`) for local `id`: its candidates gain the value's arrays; the selector is set. */
export function assignArray(ty: TyperState, id: number, values: readonly ArrayView[], node: Node): Expr {
  const local = ty.locals[id]!;
  let holder = ty.arrayLocals.get(id);
  if (!holder) {
    if (local.type !== undefined)
      ty.typeError(node, `'${local.name}' holds a ${finalType(local)}; it cannot hold an array too`);
    if (ty.emitting) throw new Error(`typer: '${local.name}' was first given an array in the last round`);
    holder = new ArrayLocal();
    ty.arrayLocals.set(id, holder);
    ty.changed = true;
  }
  for (const value of values) {
    for (const view of viewsOf(value)) {
      if (view.mapping)
        ty.typeError(
          node,
          `'${view.name}' is a view made in the kernel; a variable that is assigned arrays holds whole arrays (index the view by its own name)`,
        );
      const added = holder.add(view, (first) =>
        ty.typeError(
          node,
          `'${local.name}' holds arrays of ${first.description}; '${view.name}' is ${view.description}: an array variable holds arrays of one element type and rank`,
        ),
      );
      if (added) {
        if (ty.emitting) throw new Error(`typer: '${local.name}' gained an array in the last round`);
        ty.changed = true;
      }
    }
  }
  return assignLocal(ty, id, typed(arraySelector(ty, holder, node)), node);
}

/** The view of a local that holds arrays, or undefined for a scalar local. */
function arrayLocalView(ty: TyperState, id: number): ArrayView | undefined {
  const holder = ty.arrayLocals.get(id);
  return holder ? choiceView(ty.locals[id]!.name, id, holder.views) : undefined;
}

/** An access typed once per array that `view` may be, chosen by its selector at run time. */
export function eachArray(ty: TyperState, view: ArrayView, node: Node, access: (one: ArrayView) => Typed): Typed {
  const choice = view.choice;
  if (!choice) return access(view);
  const loc = ty.loc(node);
  const { views, selector } = choice;
  let result = access(views[views.length - 1]!);
  for (let k = views.length - 2; k >= 0; k--)
    result = ty.context.select(selectorIs(selector, k, loc), access(views[k]!), result, node, node, node);
  return result;
}

// ---- arrays ----------------------------------------------------------------------

/** The array a node names: an array parameter, a memory, a device function's array parameter, or a host array in the constants (constant memory). */
export function arrayOf(ty: TyperState, node: Node): ArrayView | undefined {
  const view = arrayOfAny(ty, node);
  if (view && ty.owner >= 0) ty.refuseInRecursive(`the array '${ty.text(node)}'`, node);
  return view;
}

function arrayOfAny(ty: TyperState, node: Node): ArrayView | undefined {
  if (node.type === 'CallExpression' || node.type === 'ParenthesizedExpression') {
    // a view used where it is made (x.subarray(1)[i], f(a.row(i))): its bounds are read at every access
    const view = viewOf(ty, node);
    if (view && !mappingExprs(view.mapping!).every(isRereadable)) {
      ty.typeError(
        node,
        `the bounds of this view have effects (assignments, calls): make the view once, const v = ${ty.text(node)}, and use v`,
      );
    }
    return view;
  }
  if (node.type !== 'Identifier') return undefined;
  const name = (node as ESTree.Identifier).name;
  const b = ty.lookup(name);
  if (b?.kind === 'local') return arrayLocalView(ty, b.id);
  if (b) return b.kind === 'array' ? b.view : undefined;
  const value = constant(ty, name);
  if (value === undefined || !isHostArray(value)) return undefined;
  let view = ty.capturedArrays.get(value);
  if (!view) {
    view = addMemory(ty, capturedHostArray(ty.context, name, value, node), node);
    ty.capturedArrays.set(value, view);
  }
  return view;
}

/** `x.subarray(begin, end?)` or `a.row(i)` (array-views.ts): the view that the call makes, or undefined for any other node. */
function viewOf(ty: TyperState, node: Node): ArrayView | undefined {
  const call = unwrapCall(node);
  const callee = call?.callee;
  if (!call || callee?.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier')
    return undefined;
  const method = callee.property.name;
  if (!Object.hasOwn(VIEW_METHODS, method)) return undefined;
  const parent = arrayOf(ty, callee.object);
  if (!parent) return undefined;
  if (parent.ndim === 0)
    ty.typeError(
      call,
      `'${parent.name}' is 0-d: read it with ${parent.name}.get(), write it with ${parent.name}.set(v)`,
    );
  const args = call.arguments;
  const usage = `${parent.name}.${VIEW_METHODS[method]}`;
  const loc = ty.loc(call);
  const bound = (n: Node, what: string): Expr => integerOf(ty.context, ty.context.expression(n), n, 'i64', what);
  const mapping =
    parent.mapping ??
    identityMapping(
      parent,
      Array.from({ length: parent.ndim }, (_, d) => extentI64(ty, parent, d, call)),
      loc,
    );
  let next: ViewMapping;
  if (method === 'row') {
    if (args.length !== 1) ty.typeError(call, `${usage} takes one index, ${args.length} given`);
    next = rowMapping(mapping, bound(args[0]!, 'the index of a row'), loc);
  } else {
    if (args.length < 1 || args.length > 2)
      ty.typeError(call, `${usage} takes a begin and an optional end, ${args.length} argument(s) given`);
    next = subarrayMapping(
      mapping,
      bound(args[0]!, 'the begin of a subarray'),
      args[1] ? bound(args[1], 'the end of a subarray') : undefined,
      loc,
    );
  }
  return viewWith(ty.text(call), next);
}

function viewWith(name: string, mapping: ViewMapping): ArrayView {
  const base = mapping.base;
  const ndim = mapping.extents.length;
  const extents = mapping.extents.every((e) => e.op === 'const')
    ? mapping.extents.map((e) => Number((e as { value: bigint }).value))
    : undefined;
  return {
    array: base.array,
    space: base.space,
    name,
    dtype: base.dtype,
    ndim,
    layout: 'A',
    description: `a ${ndim}-D view of '${base.name}' (${base.description})`,
    readOnly: base.readOnly,
    extents,
    mapping,
  };
}

/** `const v = x.subarray(...)` (or `a.row(i)`): the view's bounds are computed once, here, into hidden locals. */
export function declaresView(ty: TyperState, name: string, init: Node, isConst: boolean, out: Stmt[]): boolean {
  const view = viewOf(ty, viewOfNewMemory(ty, name, init, isConst) ?? init);
  if (!view) return false;
  if (!isConst) ty.typeError(init, `a view is declared with const: const ${name} = ${ty.text(init)}`);
  const mapping = replaceMappingExprs(view.mapping!, (e) => {
    if (e.op === 'const' || e.op === 'dim') return e;
    const id = declare(ty, `${name}$bound`, false, undefined, false);
    out.push({ op: 'expr', expr: assignLocal(ty, id, typed(e), init), loc: ty.loc(init) });
    return { op: 'local', type: 'i64', id, loc: ty.loc(init) };
  });
  ty.scope().set(name, { kind: 'array', view: viewWith(name, mapping) });
  return true;
}

/**
 * `const v = cuda.shared.array(0, i32).subarray(1)` (numba's
 * `cuda.shared.array(0, int32)[1:]`): the array is declared under a hidden
 * name, and the view call is given back on that name; undefined for any
 * other initializer.
 */
function viewOfNewMemory(ty: TyperState, name: string, init: Node, isConst: boolean): Node | undefined {
  const call = unwrapCall(init);
  const callee = call?.callee;
  if (
    !call ||
    callee?.type !== 'MemberExpression' ||
    callee.computed ||
    callee.property.type !== 'Identifier' ||
    !Object.hasOwn(VIEW_METHODS, callee.property.name)
  )
    return undefined;
  const made = unwrapCall(callee.object);
  const path = made ? cudaPath(ty, made.callee) : undefined;
  if (path === undefined || !Object.hasOwn(MEMORY_MAKERS, path)) return undefined;
  const hidden = `${name}$array`;
  declaresBinding(ty, hidden, callee.object, isConst);
  const base = callee.object;
  const id: ESTree.Identifier = {
    type: 'Identifier',
    name: hidden,
    start: base.start,
    end: base.end,
    range: base.range,
    loc: base.loc,
  } as ESTree.Identifier;
  return { ...call, callee: { ...callee, object: id } } as ESTree.CallExpression;
}

/** An array's extent along `dim` as i64: a constant where it is known, else read at run time. */
function extentI64(ty: TyperState, view: ArrayView, dim: number, node: Node): Expr {
  if (view.noExtents) ty.typeError(node, view.noExtents);
  if (view.extents) return { op: 'const', type: 'i64', value: BigInt(view.extents[dim]!), loc: ty.loc(node) };
  if (view.space === undefined && !view.mapping) ty.arrayUse[view.array]!.shape = true;
  return extentOf(view, dim, ty.loc(node));
}

/** A memory the kernel declares, in this round's order (the same id every round). */
function addMemory(ty: TyperState, memory: KernelMemory, at: Node): ArrayView {
  if (ty.owner >= 0) ty.refuseInRecursive(`the array '${memory.name}'`, at);
  const id = ty.memoryCursor++;
  ty.memories[id] = { memory, at: ty.at(at) };
  return memoryView(id, memory);
}

export function markWritten(ty: TyperState, view: ArrayView): void {
  if (view.choice) return view.choice.views.forEach((v) => markWritten(ty, v));
  if (view.space === undefined) ty.arrayUse[view.array]!.written = true;
}

/**
 * A kernel parameter that the launch made a scalar, used as an array
 * (`x.length`, `x[i]`): most often two arguments given in the wrong order,
 * so the message names the parameter, its position and what was passed.
 */
export function refuseScalarParamAsArray(ty: TyperState, name: string, node: Node): void {
  if (ty.frame.inline) return;
  const index = ty.kernel.params.indexOf(name);
  const b = ty.lookup(name);
  if (index === -1 || b?.kind !== 'local' || b.id !== ty.paramLocals[index]) return;
  const t = ty.signature[index]!;
  ty.typeError(
    node,
    `'${name}' (argument ${index + 1} of ${ty.kernel.params.length}) is used as an array here, but the launch passed a ${typeName(t)} scalar for it; pass an array as argument ${index + 1} (are two arguments swapped?)` +
      (t === 'i64'
        ? `; for a raw device address (a bigint), declare the parameter a pointer in the kernel's signatures: { signatures: [[pointer(u8), ...]] }`
        : ''),
  );
}

/** The element at `indices` (each converted to i64); records what the kernel needs of the array. */
export function elementRef(ty: TyperState, view: ArrayView, indices: readonly Node[], at: Node): ElementRef {
  const { name, ndim } = view;
  if (indices.length !== ndim) {
    const how =
      ndim === 1
        ? `${name}[i]`
        : ndim === 0
          ? `${name}.get() (and ${name}.set(v))`
          : `${name}.get(${['i', 'j', 'k'].slice(0, ndim).join(', ')})`;
    ty.typeError(
      at,
      `'${name}' is ${view.description} (${ndim}-D): it takes ${ndim} index(es), ${indices.length} given; write ${how}`,
    );
  }
  const stored = view.mapping?.base ?? view; // a view's elements are its base array's
  if (stored.space === undefined) {
    const use = ty.arrayUse[stored.array]!;
    if (stored.layout === 'A') use.strides = true;
    else if (stored.ndim > 1) use.shape = true;
  }
  const converted = indices.map((n, k) => {
    const ix = ty.context.expression(n);
    const value = literalValue(ix);
    if (view.extents && value !== undefined && Number.isInteger(value) && (value < 0 || value >= view.extents[k]!)) {
      ty.typeError(
        n,
        `the index ${value} is outside '${name}' (${view.description}): ${ndim === 1 ? 'it has' : `dimension ${k} has`} ${view.extents[k]} element(s)`,
      );
    }
    return integerOf(ty.context, ix, n, 'i64', 'an index');
  });
  return elementRefOf(view, converted);
}

export function storeElement(
  ty: TyperState,
  view: ArrayView,
  indices: readonly Node[],
  at: Node,
  node: Node,
  value: (read: () => Typed) => Typed,
): Typed {
  if (view.choice) return eachArray(ty, view, node, (one) => storeElement(ty, one, indices, at, node, value));
  if (view.readOnly) ty.typeError(at, view.readOnly);
  markWritten(ty, view);
  const ref = elementRef(ty, view, indices, at);
  const loc = ty.loc(node);
  // A compound store reads the element at the same indices: they are computed once, into temporaries.
  let effects: Expr[] = [];
  let stableRef = ref;
  const read = (): Typed => {
    if (effects.length === 0 && ref.indices.some((ix) => ix.op !== 'const' && ix.op !== 'local')) {
      const temps = ref.indices.map((ix) => {
        const id = declare(ty, '$index', false, undefined, false);
        effects.push(assignLocal(ty, id, typed(ix), at));
        return { op: 'local', type: 'i64', id, loc } as Expr;
      });
      stableRef = { ...ref, indices: temps }; // the element's own indices (a view's are already its base array's)
    }
    return typed({ op: 'load', type: view.dtype, ref: stableRef, loc });
  };
  const v = value(read);
  const store: Expr = { op: 'store', type: view.dtype, ref: stableRef, value: to(ty, v, view.dtype, node), loc };
  if (effects.length === 0) return typed(store);
  const result = { op: 'sequence', type: view.dtype, effects: [...effects], value: store, loc } as Expr;
  effects = [];
  return typed(result);
}

/**
 * An array's extent along `dim`, as i32 (the launch refuses extents of 2³¹
 * and more); a constant where it is known (memories), else read at run
 * time (parameters, dynamic shared arrays).
 */
export function extent(ty: TyperState, view: ArrayView, dim: number, node: Node): Typed {
  if (view.choice && !view.extents) return eachArray(ty, view, node, (one) => extent(ty, one, dim, node));
  if (view.noExtents) ty.typeError(node, view.noExtents);
  if (view.extents) return literal(ty, view.extents[dim]!, node, 'int-literal');
  if (view.space === undefined && !view.mapping) ty.arrayUse[view.array]!.shape = true;
  const loc = ty.loc(node);
  return typed({ op: 'convert', type: 'i32', operand: extentOf(view, dim, loc), loc });
}
