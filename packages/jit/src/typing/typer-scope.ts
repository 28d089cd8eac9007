/**
 * The kernel typer's scopes and locals (type-kernel.ts): declaring a local
 * (the same id every round), the type a local has while types are inferred
 * and at the end, assigning to it (which widens its type), and the
 * conversions of a typed value to a type.
 */
import type { ScalarName } from './jit-types.js';
import { constantOf } from './literals.js';
import { defaultLiteralType, isWidening, join, promoteValues } from './promotion.js';
import type { Expr } from './typed-ir.js';
import { isLiteralType, typed, type Node, type Typed } from './typer-context.js';
import type { Local, TyperState } from './typer-state.js';

/**
 * A local in the order of this round (the same id as in every round); named
 * in the current scope unless `named` is false. With `fixedType` it is a
 * kernel parameter of that type.
 */
export function declare(ty: TyperState, name: string, isConst: boolean, fixedType?: ScalarName, named = true): number {
  const id = ty.localCursor++;
  ty.localOwner[id] = ty.owner;
  if (id >= ty.locals.length) {
    ty.locals.push({ name, type: fixedType, literalNeeds: undefined, fixed: fixedType !== undefined, isConst });
  }
  if (named) ty.scope().set(name, { kind: 'local', id });
  return id;
}

export function withScope<T>(ty: TyperState, body: () => T): T {
  const scopes = ty.frame.scopes;
  scopes.push(new Map());
  try {
    return body();
  } finally {
    scopes.pop();
  }
}

export function finalType(local: Local): ScalarName {
  const t = local.type;
  if (t === undefined) return 'i32'; // declared, never assigned: never read either (reads are refused)
  if (t === 'int-literal') return local.literalNeeds ?? 'i32';
  if (t === 'float-literal') return 'f64';
  return t;
}

/** The current type of a local: final when emitting; while inferring, an unknown type reads as a literal that adapts. */
export function localType(ty: TyperState, id: number): ScalarName | 'int-literal' {
  const local = ty.locals[id]!;
  if (ty.emitting) return finalType(local);
  const t = local.type;
  if (t === undefined) return 'int-literal';
  if (t === 'float-literal') return 'f64';
  return t;
}

/** Records that `value` is assigned to local `id` (widening its type while inferring) and returns the converted value. */
export function assignLocal(ty: TyperState, id: number, value: Typed, node: Node): Expr {
  const local = ty.locals[id]!;
  if (local.fixed && !ty.assignedParams.has(id)) {
    if (ty.emitting) throw new Error(`typer: the parameter '${local.name}' was first assigned in the last round`);
    ty.assignedParams.add(id);
    ty.changed = true;
  }
  if (!ty.emitting && !local.fixed) {
    const next = join(local.type, value.type);
    if (next !== local.type) {
      local.type = next;
      ty.changed = true;
    }
    if (isLiteralType(value.type)) {
      const needs = defaultLiteralType(value.type, value.value);
      const joined =
        local.literalNeeds === undefined ? needs : (promoteValues(local.literalNeeds, needs) as ScalarName);
      if (joined !== local.literalNeeds) {
        local.literalNeeds = joined;
        ty.changed = true;
      }
    }
  }
  const target = ty.emitting || local.fixed ? finalType(local) : concrete(value);
  if (local.fixed && !isLiteralType(value.type) && !isWidening(value.type, target)) {
    ty.typeError(
      node,
      `cannot assign a ${value.type} to '${local.name}', a ${target} parameter, without a cast: write ${target}(...)`,
    );
  }
  return { op: 'assign', type: target, id, value: to(ty, value, target, node), loc: ty.loc(node) };
}

// ---- conversions ---------------------------------------------------------------

export function concrete(t: Typed): ScalarName {
  return isLiteralType(t.type) ? defaultLiteralType(t.type, t.value) : t.type;
}

/** `t` as a value of type `target`: a literal is made in that type, anything else converted. */
export function to(ty: TyperState, t: Typed, target: ScalarName, node: Node): Expr {
  if (isLiteralType(t.type)) return constantOf(t.value ?? 0, target, ty.loc(node));
  if (t.type === target) return t.expr;
  return { op: 'convert', type: target, operand: t.expr, loc: ty.loc(node) };
}

export function truthy(ty: TyperState, t: Typed, node: Node): Expr {
  return to(ty, t, 'bool', node);
}

export function literal(ty: TyperState, value: number, node: Node, kind?: 'int-literal' | 'float-literal'): Typed {
  const k = kind ?? (Number.isInteger(value) && !Object.is(value, -0) ? 'int-literal' : 'float-literal');
  return { expr: constantOf(value, defaultLiteralType(k, value), ty.loc(node)), type: k, value };
}

export function readLocal(ty: TyperState, id: number, node: Node): Typed {
  const t = localType(ty, id);
  if (t === 'int-literal')
    return { expr: { op: 'local', type: 'i32', id, loc: ty.loc(node) }, type: 'int-literal', value: 0 };
  return typed({ op: 'local', type: t, id, loc: ty.loc(node) });
}
