/**
 * The kernel typer's expressions (type-kernel.ts): literals, names,
 * assignments and updates, members (array properties, `cuda.threadIdx.x`,
 * `Math.PI`) and calls (array methods, Math.*, cuda.*, device functions,
 * linked code, casts). Operators are operator-typing.ts's, arrays
 * element-access.ts's.
 */
import type { ESTree } from 'meriyah';
import { FreeVariableError } from '../errors.js';
import { unsupportedNodePhrase } from '../parse/supported-syntax.js';
import type { ArrayView } from './array-bindings.js';
import { VIEW_METHODS } from './array-views.js';
import { cudaValue } from './cuda-calls.js';
import { inlineValue } from './device-calls.js';
import { isRecursive } from './recursive-calls.js';
import { externalCall } from './external-calls.js';
import {
  CASTS,
  isCudaCast,
  CUDA_DIMENSIONS,
  CUDA_SCALARS,
  GLOBAL_CONSTANTS,
  MATH_CONSTANTS,
  NUMBER_CONSTANTS,
} from './intrinsics.js';
import { mathCall, numberCall } from './math-calls.js';
import { numbaFunctionHint } from './numba-spellings.js';
import type { SpecialRegister } from './typed-ir.js';
import { literalValue, typed, type Node, type Typed } from './typer-context.js';
import {
  arrayOf,
  arrayValue,
  assignArray,
  eachArray,
  elementRef,
  extent,
  refuseScalarParamAsArray,
  storeElement,
} from './element-access.js';
import {
  bigintConstant,
  constant,
  cudaMember,
  cudaPath,
  deviceFunction,
  dtypeOf,
  externalFunction,
  free,
  globalName,
  isConsoleLog,
  isGridSync,
} from './name-resolution.js';
import { binary, binaryOf, logical, selectOf, unary } from './operator-typing.js';
import { assignLocal, concrete, declare, literal, localType, readLocal, to, truthy } from './typer-scope.js';
import type { TyperState } from './typer-state.js';

export function expression(ty: TyperState, node: Node): Typed {
  switch (node.type) {
    case 'Literal':
      return literalExpression(ty, node as ESTree.Literal);
    case 'Identifier':
      return identifier(ty, node as ESTree.Identifier);
    case 'ParenthesizedExpression':
      return expression(ty, (node as ESTree.ParenthesizedExpression).expression);
    case 'BinaryExpression':
      return binary(ty, node as ESTree.BinaryExpression);
    case 'LogicalExpression':
      return logical(ty, node as ESTree.LogicalExpression);
    case 'UnaryExpression':
      return unary(ty, node as ESTree.UnaryExpression);
    case 'UpdateExpression':
      return update(ty, node as ESTree.UpdateExpression);
    case 'AssignmentExpression':
      return assignment(ty, node as ESTree.AssignmentExpression);
    case 'ConditionalExpression': {
      const n = node as ESTree.ConditionalExpression;
      const test = truthy(ty, expression(ty, n.test), n.test);
      return selectOf(
        ty,
        test,
        expression(ty, n.consequent),
        expression(ty, n.alternate),
        n,
        n.consequent,
        n.alternate,
      );
    }
    case 'MemberExpression':
      return member(ty, node as ESTree.MemberExpression);
    case 'CallExpression':
      return call(ty, node as ESTree.CallExpression);
    case 'SequenceExpression': {
      const n = node as ESTree.SequenceExpression;
      const parts = n.expressions.map((e) => expression(ty, e));
      const last = parts[parts.length - 1]!;
      const value = to(ty, last, concrete(last), n);
      return typed({
        op: 'sequence',
        type: value.type,
        effects: parts.slice(0, -1).map((p) => p.expr),
        value,
        loc: ty.loc(n),
      });
    }
    case 'ArrayExpression':
      return ty.unsupported(
        node,
        'array literals (other than the shape of cuda.shared/local.array and the index of cuda.atomic.*)',
      );
    default:
      return ty.unsupported(node, unsupportedNodePhrase(node.type));
  }
}

function literalExpression(ty: TyperState, node: ESTree.Literal): Typed {
  const v = node.value;
  if (typeof v === 'number') {
    // `1.0` is written as a float even though its value is whole; `1e3` is not (compilers print 1000 so)
    const raw = (node as { raw?: string }).raw ?? ty.text(node);
    const isFloatText = raw.includes('.') && !/^0[xXbBoO]/.test(raw);
    return literal(ty, v, node, isFloatText ? 'float-literal' : undefined);
  }
  if (typeof v === 'boolean') return typed({ op: 'const', type: 'bool', value: v, loc: ty.loc(node) });
  if (typeof v === 'bigint') return bigintConstant(ty, v, node, `the literal ${v}n`);
  if (v === null) return ty.unsupported(node, "'null'");
  return ty.unsupported(
    node,
    typeof v === 'string' ? 'strings (other than the text of cuda.printf and console.log)' : 'this literal',
  );
}

function identifier(ty: TyperState, node: ESTree.Identifier): Typed {
  const name = node.name;
  const b = ty.lookup(name);
  if (b?.kind === 'local' && ty.arrayLocals.has(b.id))
    return ty.typeError(node, `'${name}' is an array: index it (${name}[i]) or read ${name}.length`);
  if (b?.kind === 'local') {
    const t = localType(ty, b.id);
    if (ty.emitting && ty.locals[b.id]!.type === undefined)
      ty.typeError(node, `'${name}' is read but never assigned a value`);
    if (t === 'int-literal')
      return { expr: { op: 'local', type: 'i32', id: b.id, loc: ty.loc(node) }, type: 'int-literal', value: 0 };
    return typed({ op: 'local', type: t, id: b.id, loc: ty.loc(node) });
  }
  if (b?.kind === 'array') {
    const { view } = b;
    if (view.space === undefined && !ty.frame.inline && ty.kernel.params[view.array] === name) {
      const count = ty.kernel.params.length;
      ty.typeError(
        node,
        `'${name}' (argument ${view.array + 1} of ${count}) is used as a scalar here, but the launch passed an ${view.description} for it; pass a number as argument ${view.array + 1} (are two arguments swapped?), or index it (${name}[i])`,
      );
    }
    return ty.typeError(node, `'${name}' is an array: index it (${name}[i]) or read ${name}.length`);
  }
  if (b?.kind === 'grid-group') return ty.typeError(node, `'${name}' is the grid group: call ${name}.sync()`);
  return free(ty, name, node);
}

/** What an assignment target is: a local or an array element. */
function assignTarget(
  ty: TyperState,
  node: Node,
): { kind: 'local'; id: number } | { kind: 'element'; view: ArrayView; indices: Node[]; at: Node } {
  if (node.type === 'Identifier') {
    const name = (node as ESTree.Identifier).name;
    const b = ty.lookup(name);
    if (!b) {
      if (Object.hasOwn(ty.frame.constants, name))
        ty.typeError(node, `'${name}' is a constant of the kernel and cannot be assigned`);
      if (Object.hasOwn(GLOBAL_CONSTANTS, name)) ty.typeError(node, `'${name}' is a constant and cannot be assigned`);
      free(ty, name, node); // no parameter, local or constant has this name: it throws the free-variable error
      return ty.unsupported(node, `assigning to '${name}'`);
    }
    if (b.kind === 'array')
      ty.typeError(node, `'${name}' is an array and cannot be reassigned; assign its elements (${name}[i] = ...)`);
    if (b.kind === 'grid-group') ty.typeError(node, `'${name}' is the grid group and cannot be reassigned`);
    if (ty.locals[b.id]!.isConst) ty.typeError(node, `'${name}' is a const and cannot be assigned`);
    return { kind: 'local', id: b.id };
  }
  if (node.type === 'MemberExpression') {
    const m = node as ESTree.MemberExpression;
    if (m.computed) {
      const view = arrayOf(ty, m.object);
      if (view) return { kind: 'element', view, indices: [m.property], at: node };
    }
    if (m.object.type === 'Identifier') refuseScalarParamAsArray(ty, m.object.name, node);
    return ty.typeError(node, 'only variables and array elements (x[i]) can be assigned');
  }
  return ty.unsupported(node, 'this assignment target');
}

function assignment(ty: TyperState, node: ESTree.AssignmentExpression): Typed {
  const target = assignTarget(ty, node.left);
  const op = node.operator;
  const compound = op === '=' ? undefined : op.slice(0, -1);
  if (compound === '&&' || compound === '||' || compound === '??') return ty.unsupported(node, `'${op}'`);
  if (target.kind === 'local') {
    const holdsArrays = ty.arrayLocals.has(target.id);
    const array = compound === undefined ? arrayValue(ty, node.right) : undefined;
    if (array) return typed(assignArray(ty, target.id, array, node.right));
    if (holdsArrays)
      ty.typeError(
        node,
        `'${ty.locals[target.id]!.name}' holds an array: assign it another array (${ty.locals[target.id]!.name} = other), or assign its elements`,
      );
    const value =
      compound === undefined
        ? expression(ty, node.right)
        : binaryOf(ty, compound, readLocal(ty, target.id, node.left), expression(ty, node.right), node);
    return typed(assignLocal(ty, target.id, value, node));
  }
  return storeElement(ty, target.view, target.indices, target.at, node, (read) =>
    compound === undefined
      ? expression(ty, node.right)
      : binaryOf(ty, compound, read(), expression(ty, node.right), node),
  );
}

function update(ty: TyperState, node: ESTree.UpdateExpression): Typed {
  const target = assignTarget(ty, node.argument);
  const op = node.operator === '++' ? '+' : '-';
  const one = (): Typed => literal(ty, 1, node, 'int-literal');
  if (target.kind === 'local' && ty.arrayLocals.has(target.id))
    ty.typeError(node, `'${ty.locals[target.id]!.name}' holds an array; it cannot be incremented`);
  if (target.kind === 'local') {
    const old = readLocal(ty, target.id, node.argument);
    const assign = assignLocal(ty, target.id, binaryOf(ty, op, old, one(), node), node);
    if (node.prefix) return typed(assign);
    // postfix: the old value, then the assignment; the old value is kept in a temporary
    const tmp = declare(ty, `${(node.argument as ESTree.Identifier).name}$old`, false, undefined, false);
    const keep = assignLocal(ty, tmp, typed(to(ty, old, assign.type, node)), node);
    return typed({
      op: 'sequence',
      type: assign.type,
      effects: [keep, assign],
      value: { op: 'local', type: assign.type, id: tmp, loc: ty.loc(node) },
      loc: ty.loc(node),
    });
  }
  if (node.prefix)
    return storeElement(ty, target.view, target.indices, target.at, node, (read) =>
      binaryOf(ty, op, read(), one(), node),
    );
  // postfix on an element: the old value is kept in a temporary as it is read, and is the expression's value
  const dtype = target.view.dtype;
  const tmp = declare(ty, '$old', false, undefined, false);
  const store = storeElement(ty, target.view, target.indices, target.at, node, (read) => {
    const keep = assignLocal(ty, tmp, read(), node);
    return binaryOf(ty, op, typed(keep), one(), node);
  });
  return typed({
    op: 'sequence',
    type: dtype,
    effects: [store.expr],
    value: { op: 'local', type: dtype, id: tmp, loc: ty.loc(node) },
    loc: ty.loc(node),
  });
}

function member(ty: TyperState, node: ESTree.MemberExpression): Typed {
  const loc = ty.loc(node);
  const view = arrayOf(ty, node.object);
  if (view) {
    if (node.computed)
      return eachArray(ty, view, node, (one) =>
        typed({ op: 'load', type: one.dtype, ref: elementRef(ty, one, [node.property], node), loc }),
      );
    const prop = node.property.type === 'Identifier' ? node.property.name : '';
    if (prop === 'length') {
      if (view.ndim !== 1)
        ty.typeError(
          node,
          `'${view.name}' is ${view.ndim}-D: use .shape[k] for an extent or .size for the element count`,
        );
      return extent(ty, view, 0, node);
    }
    if (prop === 'size') {
      let total = extent(ty, view, 0, node);
      for (let d = 1; d < view.ndim; d++) total = binaryOf(ty, '*', total, extent(ty, view, d, node), node);
      return total;
    }
    if (prop === 'ndim') return literal(ty, view.ndim, node, 'int-literal');
    return ty.typeError(
      node,
      `arrays in kernels have length, size, ndim, shape[k], get(...) and set(...); '${prop}' is not one of them`,
    );
  }
  // x.shape[k]
  if (node.computed && node.object.type === 'MemberExpression') {
    const inner = node.object as ESTree.MemberExpression;
    const base = arrayOf(ty, inner.object);
    if (base && !inner.computed && inner.property.type === 'Identifier' && inner.property.name === 'shape') {
      const k = expression(ty, node.property);
      const kv = k.type === 'int-literal' ? literalValue(k) : undefined;
      if (kv === undefined || kv < 0 || kv >= base.ndim)
        ty.typeError(
          node.property,
          `shape[k] needs a constant k from 0 to ${base.ndim - 1} (${base.name} is ${base.ndim}-D here)`,
        );
      return extent(ty, base, kv, node);
    }
  }
  const member = cudaMember(ty, node);
  if (member !== undefined) {
    const special = CUDA_SCALARS[member];
    if (special) return specialRegister(ty, special, node);
    return ty.typeError(
      node,
      `cuda.${member} is not a value kernels can read here (${Object.keys(CUDA_DIMENSIONS).join(', ')} take .x/.y/.z)`,
    );
  }
  // cuda.threadIdx.x
  if (!node.computed && node.property.type === 'Identifier') {
    const axis = node.property.name;
    const dimension = cudaMember(ty, node.object);
    if (dimension !== undefined && CUDA_DIMENSIONS[dimension] && (axis === 'x' || axis === 'y' || axis === 'z')) {
      return specialRegister(ty, `${CUDA_DIMENSIONS[dimension]}.${axis}` as SpecialRegister, node);
    }
    const global = globalName(ty, node.object);
    if (global === 'Math' && Object.hasOwn(MATH_CONSTANTS, axis))
      return literal(ty, MATH_CONSTANTS[axis]!, node, 'float-literal');
    if (global === 'Number' && Object.hasOwn(NUMBER_CONSTANTS, axis)) {
      const v = NUMBER_CONSTANTS[axis]!;
      return literal(ty, v, node, Number.isSafeInteger(v) && Math.abs(v) > 1 ? 'int-literal' : 'float-literal');
    }
  }
  // a member of a constant (a host array: TABLE[i]) or of a call's result: what they are says more
  const object = node.object;
  if (object.type === 'Identifier') {
    refuseScalarParamAsArray(ty, object.name, node);
    const c = constant(ty, object.name);
    if (typeof c === 'object' || typeof c === 'function') free(ty, object.name, object);
  }
  if (object.type === 'CallExpression') expression(ty, object);
  return ty.unsupported(node, `'${ty.text(node)}'`);
}

function specialRegister(ty: TyperState, register: SpecialRegister, node: Node): Typed {
  return typed({ op: 'special', type: 'i32', register, loc: ty.loc(node) });
}

// ---- calls -----------------------------------------------------------------------

function call(ty: TyperState, node: ESTree.CallExpression): Typed {
  const callee = node.callee;
  const loc = ty.loc(node);
  // x.get(i, j) / x.set(i, j, v)
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
    const view = arrayOf(ty, callee.object);
    if (view) {
      const method = callee.property.name;
      if (method === 'get')
        return eachArray(ty, view, node, (one) =>
          typed({ op: 'load', type: one.dtype, ref: elementRef(ty, one, node.arguments, node), loc }),
        );
      if (method === 'set') {
        if (node.arguments.length !== view.ndim + 1)
          ty.typeError(
            node,
            `${view.name}.set takes ${view.ndim} index(es) and a value (${view.name} is ${view.ndim}-D here)`,
          );
        const value = node.arguments[view.ndim]!;
        return storeElement(ty, view, node.arguments.slice(0, view.ndim), node, node, () => expression(ty, value));
      }
      if (Object.hasOwn(VIEW_METHODS, method))
        ty.typeError(
          node,
          `${view.name}.${method}(...) makes a view: hold it in a const (const v = ${ty.text(node)}) or index it where it is made`,
        );
      return ty.typeError(
        node,
        `arrays in kernels have get(...), set(...), subarray(begin, end?) and row(i); '${method}' is not supported`,
      );
    }
    if (callee.object.type === 'Identifier') refuseScalarParamAsArray(ty, callee.object.name, callee);
    if (isGridSync(ty, callee))
      return ty.typeError(node, `${ty.text(callee)}() gives no value: call it as a statement`);
    if (isConsoleLog(ty, callee)) return ty.typeError(node, 'console.log(...) gives no value: call it as a statement');
    const global = globalName(ty, callee.object);
    if (global === 'Math') return mathCall(ty.context, callee.property.name, node);
    if (global === 'Number') return numberCall(ty.context, callee.property.name, node);
  }
  const path = cudaPath(ty, callee);
  if (path !== undefined && !isCudaCast(path)) return cudaValue(ty.context, path, node);
  const fn = deviceFunction(ty, callee);
  if (fn && isRecursive(fn)) return ty.recursive.call(ty.context, fn, node, false);
  if (fn) return inlineValue(ty.context, fn, node);
  const external = externalFunction(ty, callee);
  if (external) return externalCall(ty.context, external, node, ty.externals);
  // `cuda.f32(x)` is `f32(x)` under the name that TypeScript types as a number
  const name = path !== undefined ? path : globalName(ty, callee);
  const target = name !== undefined && Object.hasOwn(CASTS, name) ? CASTS[name] : dtypeOf(ty, callee);
  if (target !== undefined) {
    if (node.arguments.length !== 1) ty.typeError(node, `${name ?? ty.text(callee)}(x) takes one value`);
    return typed(to(ty, expression(ty, node.arguments[0]!), target, node));
  }
  if (callee.type === 'Identifier') {
    const calleeName = callee.name;
    if (ty.lookup(calleeName) === undefined && !Object.hasOwn(ty.frame.constants, calleeName)) {
      throw new FreeVariableError(
        `'${calleeName}' is not a function kernels can call (device functions come with jit.device, named in the constants)${numbaFunctionHint(calleeName)}`,
        ty.at(callee),
      );
    }
    if (ty.lookup(calleeName) === undefined) {
      ty.typeError(
        callee,
        `the constant '${calleeName}' is not a device function (make one with jit.device(fn), or declare linked code with declareDevice)`,
      );
    }
  }
  return ty.unsupported(node, `the call ${ty.text(callee)}(...)`);
}
