/**
 * The kernel typer's names that are no local (type-kernel.ts): free names
 * (the function's constants, global constants), the globals a node names
 * through namespace objects, `cuda.*` paths (which the rule tables of
 * cuda-calls.ts and intrinsics.ts type), dtype tokens, and the device
 * functions and linked code that a callee names.
 */
import type { ESTree } from 'meriyah';
import { deviceFunctionOf, type DeviceFunction, type KernelConstant } from '../device-function.js';
import { FreeVariableError } from '../errors.js';
import { ExternalDeviceFunction } from '../external-device-function.js';
import { CASTS, isCudaCast, GLOBAL_CONSTANTS, INTRINSIC_NAMES } from './intrinsics.js';
import type { ScalarName } from './jit-types.js';
import { isHostArray } from './kernel-memories.js';
import { makerType } from './signature.js';
import { typed, type Node, type Typed } from './typer-context.js';
import { literal } from './typer-scope.js';
import type { TyperState } from './typer-state.js';

/** The constant a free name has in the current function. */
export function constant(ty: TyperState, name: string): KernelConstant | undefined {
  const constants = ty.frame.constants;
  return ty.lookup(name) === undefined && Object.hasOwn(constants, name) ? constants[name] : undefined;
}

/** The scalar type a dtype token names: a scalar maker, or a constant that is one (kernels generic in a dtype). */
export function dtypeOf(ty: TyperState, node: Node): ScalarName | undefined {
  if (node.type === 'Identifier') {
    const made = makerType(constant(ty, node.name));
    if (made) return made;
  }
  const path = cudaMember(ty, node);
  const name = path !== undefined && isCudaCast(path) ? path : globalName(ty, node);
  return name !== undefined && name !== 'Number' && name !== 'Boolean' && Object.hasOwn(CASTS, name)
    ? CASTS[name]
    : undefined;
}

/** A bigint as an i64 (one of [2^63, 2^64) keeps its bits, as a u64 mask would); one of no 64-bit type is refused (2n ** 64n + 5n was 5n). */
export function bigintConstant(ty: TyperState, v: bigint, node: Node, what: string): Typed {
  if (v < -(1n << 63n) || v >= 1n << 64n) ty.typeError(node, `${what} is outside the 64-bit integers (i64 and u64)`);
  return typed({ op: 'const', type: 'i64', value: BigInt.asIntN(64, v), loc: ty.loc(node) });
}

/** A name that is no parameter or local: a captured constant or a global value. */
export function free(ty: TyperState, name: string, node: Node): Typed {
  const constants = ty.frame.constants;
  if (Object.hasOwn(constants, name)) {
    const c = constants[name];
    if (typeof c === 'number') return literal(ty, c, node);
    if (typeof c === 'boolean') return typed({ op: 'const', type: 'bool', value: c, loc: ty.loc(node) });
    if (typeof c === 'bigint') return bigintConstant(ty, c, node, `the constant '${name}' (${c}n)`);
    if (deviceFunctionOf(c)) return ty.typeError(node, `'${name}' is a device function: call it, ${name}(...)`);
    if (c instanceof ExternalDeviceFunction)
      return ty.typeError(node, `'${name}' is linked device code (declareDevice '${c.symbol}'): call it, ${name}(...)`);
    const dtype = makerType(c);
    if (dtype)
      return ty.typeError(
        node,
        `'${name}' is the scalar type ${dtype}: use it as a dtype (cuda.shared.array(n, ${name})) or a cast, ${name}(x)`,
      );
    if (isHostArray(c))
      return ty.typeError(
        node,
        `'${name}' is a host array, read from constant memory: index it (${name}[i]) or read ${name}.length`,
      );
    return ty.typeError(
      node,
      `the constant '${name}' is a ${typeof c}; constants are numbers, bigints, booleans, device functions or host arrays`,
    );
  }
  if (Object.hasOwn(GLOBAL_CONSTANTS, name)) return literal(ty, GLOBAL_CONSTANTS[name]!, node, 'float-literal');
  if (name === 'undefined') return ty.unsupported(node, "'undefined'");
  throw new FreeVariableError(
    `'${name}' is not a parameter, a local variable or a constant of the ${ty.frame.inline ? `device function '${ty.frame.inline.name}'` : 'kernel'}; kernels cannot read variables from outside: pass it as an argument, or as a constant with ${ty.frame.inline ? 'jit.device(fn, { constants: { ... } })' : `jit(fn, { constants: { ${name}: ... } })`}`,
    ty.at(node),
  );
}

/** The name a callee or object stands for, looking through namespace objects and `(0, ns.f)` that compilers write. */
export function globalName(ty: TyperState, node: Node): string | undefined {
  let n: Node = node;
  while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
  if (n.type === 'SequenceExpression') {
    const s = n as ESTree.SequenceExpression;
    const first = s.expressions[0];
    if (s.expressions.length === 2 && first?.type === 'Literal') return globalName(ty, s.expressions[1]!);
    return undefined;
  }
  if (n.type === 'Identifier') {
    const name = (n as ESTree.Identifier).name;
    return ty.lookup(name) || Object.hasOwn(ty.frame.constants, name) ? undefined : name;
  }
  if (n.type === 'MemberExpression') {
    const m = n as ESTree.MemberExpression;
    if (
      !m.computed &&
      m.property.type === 'Identifier' &&
      INTRINSIC_NAMES.has(m.property.name) &&
      m.object.type === 'Identifier' &&
      !ty.lookup(m.object.name)
    ) {
      return m.property.name;
    }
  }
  return undefined;
}

/**
 * The path of a member under `cuda`: `cuda.laneid` is `laneid`,
 * `cuda.atomic.add` is `atomic.add`, `cuda.cg.thisGrid().sync` is
 * `cg.thisGrid().sync` (calls without arguments are part of a path).
 */
export function cudaPath(ty: TyperState, node: Node): string | undefined {
  if (node.type === 'CallExpression') {
    const call = node as ESTree.CallExpression;
    if (call.arguments.length !== 0) return undefined;
    const inner = cudaPath(ty, call.callee);
    return inner === undefined ? undefined : `${inner}()`;
  }
  if (node.type !== 'MemberExpression') return undefined;
  const m = node as ESTree.MemberExpression;
  if (m.computed || m.property.type !== 'Identifier') return undefined;
  if (globalName(ty, m.object) === 'cuda') return m.property.name;
  const inner = cudaPath(ty, m.object);
  return inner === undefined ? undefined : `${inner}.${m.property.name}`;
}

/** `cuda.<name>` (one member, the name), or undefined. */
export function cudaMember(ty: TyperState, node: Node): string | undefined {
  const path = cudaPath(ty, node);
  return path === undefined || path.includes('.') || path.includes('(') ? undefined : path;
}

export function unwrapCall(node: Node): ESTree.CallExpression | undefined {
  let n: Node = node;
  while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
  return n.type === 'CallExpression' ? (n as ESTree.CallExpression) : undefined;
}

/** The device function a callee names (a free name whose constant is one), or undefined. */
export function deviceFunction(ty: TyperState, callee: Node): DeviceFunction | undefined {
  const name = calleeConstantName(ty, callee);
  const c = name === undefined ? undefined : constant(ty, name);
  return c === undefined ? undefined : deviceFunctionOf(c);
}

/** The linked device function (`declareDevice`) a callee names, or undefined. */
export function externalFunction(ty: TyperState, callee: Node): ExternalDeviceFunction | undefined {
  const name = calleeConstantName(ty, callee);
  const c = name === undefined ? undefined : constant(ty, name);
  return c instanceof ExternalDeviceFunction ? c : undefined;
}

/**
 * The constant a callee names: `f`, or the forms compilers give a call of
 * an imported `f` (`(0, ns.f)`, `ns.f` with `ns` a free name, as vitest,
 * esbuild and tsc's CommonJS output write them), when `f` is a constant.
 */
function calleeConstantName(ty: TyperState, callee: Node): string | undefined {
  let n: Node = callee;
  while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
  if (n.type === 'SequenceExpression') {
    const s = n as ESTree.SequenceExpression;
    if (s.expressions.length !== 2 || s.expressions[0]?.type !== 'Literal') return undefined;
    n = s.expressions[1]!;
  }
  if (n.type === 'Identifier') return (n as ESTree.Identifier).name;
  if (n.type !== 'MemberExpression') return undefined;
  const m = n as ESTree.MemberExpression;
  if (m.computed || m.property.type !== 'Identifier' || m.object.type !== 'Identifier') return undefined;
  const namespace = m.object.name;
  if (ty.lookup(namespace) !== undefined || Object.hasOwn(ty.frame.constants, namespace)) return undefined;
  const name = m.property.name;
  return Object.hasOwn(ty.frame.constants, name) ? name : undefined;
}

export function isConsoleLog(ty: TyperState, callee: Node): boolean {
  if (callee.type !== 'MemberExpression') return false;
  const m = callee as ESTree.MemberExpression;
  return (
    !m.computed &&
    m.property.type === 'Identifier' &&
    m.property.name === 'log' &&
    globalName(ty, m.object) === 'console'
  );
}

/** `g.sync()` for a `const g = cuda.cg.thisGrid()`. */
export function isGridSync(ty: TyperState, callee: Node): boolean {
  if (callee.type !== 'MemberExpression') return false;
  const m = callee as ESTree.MemberExpression;
  if (m.computed || m.property.type !== 'Identifier' || m.object.type !== 'Identifier') return false;
  return ty.lookup(m.object.name)?.kind === 'grid-group';
}
