/**
 * The kernel typer's statements (type-kernel.ts): blocks, declarations,
 * `if`, loops, labels, `break`/`continue`, `return`, and the calls that are
 * statements of their own (intrinsics that give nothing, `console.log`,
 * device functions, the grid group's `sync()`).
 */
import type { ESTree } from 'meriyah';
import { unsupportedNodePhrase } from '../parse/supported-syntax.js';
import { cudaStatement, dimensionCount, gridComponent, gridSizeComponent } from './cuda-calls.js';
import { inlineStatement } from './device-calls.js';
import { isRecursive } from './recursive-calls.js';
import { consoleLogCall } from './print-calls.js';
import type { Stmt } from './typed-ir.js';
import { typed, type Node } from './typer-context.js';
import { arrayValue, assignArray, declaresBinding, declaresView } from './element-access.js';
import { expression } from './expression-typing.js';
import { cudaPath, deviceFunction, isConsoleLog, isGridSync, unwrapCall } from './name-resolution.js';
import { assignLocal, declare, truthy, withScope } from './typer-scope.js';
import type { TyperState } from './typer-state.js';

export function block(ty: TyperState, statements: readonly Node[]): Stmt[] {
  return withScope(ty, () => statements.flatMap((s) => statement(ty, s)));
}

function statement(ty: TyperState, node: Node): Stmt[] {
  switch (node.type) {
    case 'ExpressionStatement': {
      const e = (node as ESTree.ExpressionStatement).expression;
      if (e.type === 'Literal' && typeof e.value === 'string') return []; // a directive such as "use strict"
      return [expressionStatement(ty, e)];
    }
    case 'VariableDeclaration':
      return declaration(ty, node as ESTree.VariableDeclaration);
    case 'BlockStatement':
      return block(ty, (node as ESTree.BlockStatement).body);
    case 'EmptyStatement':
      return [];
    case 'IfStatement': {
      const n = node as ESTree.IfStatement;
      const test = truthy(ty, expression(ty, n.test), n.test);
      const then = withScope(ty, () => statement(ty, n.consequent));
      const otherwise = n.alternate ? withScope(ty, () => statement(ty, n.alternate!)) : [];
      return [{ op: 'if', test, then, otherwise, loc: ty.loc(node) }];
    }
    case 'ForStatement':
      return forLoop(ty, node as ESTree.ForStatement, undefined);
    case 'WhileStatement':
      return whileLoop(ty, node as ESTree.WhileStatement, undefined);
    case 'DoWhileStatement':
      return doWhileLoop(ty, node as ESTree.DoWhileStatement, undefined);
    case 'LabeledStatement':
      return labelled(ty, node as ESTree.LabeledStatement);
    case 'BreakStatement':
    case 'ContinueStatement':
      return [jump(ty, node as ESTree.BreakStatement | ESTree.ContinueStatement)];
    case 'ReturnStatement': {
      const n = node as ESTree.ReturnStatement;
      const exit = ty.exit;
      if (exit) return exit.returnStatement(n);
      if (n.argument) ty.typeError(n.argument, 'a kernel returns nothing: write `return;` (results go into arrays)');
      return [{ op: 'return', loc: ty.loc(node) }];
    }
    default:
      return ty.unsupported(node, unsupportedNodePhrase(node.type));
  }
}

export function expressionStatement(ty: TyperState, e: ESTree.Expression): Stmt {
  return statementCall(ty, e) ?? { op: 'expr', expr: expression(ty, e).expr, loc: ty.loc(e) };
}

/** A call that is a statement of its own: an intrinsic that gives nothing, `console.log`, a device function's call. */
function statementCall(ty: TyperState, e: ESTree.Expression): Stmt | undefined {
  const call = unwrapCall(e);
  if (!call) return undefined;
  const callee = call.callee;
  const fn = deviceFunction(ty, callee);
  if (fn && isRecursive(fn))
    return { op: 'expr', expr: ty.recursive.call(ty.context, fn, call, true).expr, loc: ty.loc(call) };
  if (fn) return inlineStatement(ty.context, fn, call);
  if (isGridSync(ty, callee)) return gridSync(ty, call);
  const path = cudaPath(ty, callee);
  if (path !== undefined) return cudaStatement(ty.context, path, call);
  if (isConsoleLog(ty, callee)) return consoleLogCall(ty.context, call.arguments, call);
  return undefined;
}

function declaration(ty: TyperState, node: ESTree.VariableDeclaration): Stmt[] {
  const out: Stmt[] = [];
  const isConst = node.kind === 'const';
  if (node.kind !== 'let' && node.kind !== 'const' && node.kind !== 'var')
    ty.unsupported(node, `'${node.kind}' declarations`);
  for (const d of node.declarations) {
    if (d.id.type === 'ArrayPattern') {
      out.push(...destructure(ty, d.id, d.init ?? undefined, isConst));
      continue;
    }
    if (d.id.type !== 'Identifier') ty.unsupported(d.id, 'destructuring other than `const [i, j] = cuda.grid(2)`');
    const name = d.id.name;
    if (d.init && declaresView(ty, name, d.init, isConst, out)) continue;
    if (d.init && declaresBinding(ty, name, d.init, isConst)) continue;
    const array = d.init ? arrayValue(ty, d.init) : undefined;
    if (array && d.init) {
      const id = declare(ty, name, isConst);
      out.push({ op: 'expr', expr: assignArray(ty, id, array, d.init), loc: ty.loc(d) });
      continue;
    }
    const value = d.init ? expression(ty, d.init) : undefined;
    const id = declare(ty, name, isConst);
    if (value && d.init) out.push({ op: 'expr', expr: assignLocal(ty, id, value, d.init), loc: ty.loc(d) });
    else if (isConst) ty.typeError(d, `const '${name}' needs a value`);
  }
  return out;
}

function destructure(
  ty: TyperState,
  pattern: ESTree.ArrayPattern,
  init: ESTree.Expression | undefined,
  isConst: boolean,
): Stmt[] {
  const call = init ? unwrapCall(init) : undefined;
  const what = call ? cudaPath(ty, call.callee) : undefined;
  if (!init || !call || (what !== 'grid' && what !== 'gridsize')) {
    return ty.unsupported(pattern, 'destructuring other than `const [i, j] = cuda.grid(2)` or `cuda.gridsize(n)`');
  }
  const n = dimensionCount(ty.context, call, what);
  if (pattern.elements.length > n)
    ty.typeError(pattern, `cuda.${what}(${n}) gives ${n} values, ${pattern.elements.length} names were given`);
  const out: Stmt[] = [];
  pattern.elements.forEach((element, axis) => {
    if (element === null) return;
    if (element.type !== 'Identifier') ty.unsupported(element, 'nested destructuring');
    const loc = ty.loc(call);
    const value = typed(what === 'grid' ? gridComponent(axis, loc) : gridSizeComponent(axis, loc));
    const id = declare(ty, element.name, isConst);
    out.push({ op: 'expr', expr: assignLocal(ty, id, value, element), loc: ty.loc(element) });
  });
  return out;
}

function labelled(ty: TyperState, node: ESTree.LabeledStatement): Stmt[] {
  const label = node.label.name;
  const body = node.body;
  if (body.type === 'ForStatement') return forLoop(ty, body, label);
  if (body.type === 'WhileStatement') return whileLoop(ty, body, label);
  if (body.type === 'DoWhileStatement') return doWhileLoop(ty, body, label);
  const id = ty.nextTarget++;
  const targets = ty.frame.targets;
  targets.push({ id, label, isLoop: false });
  try {
    const inner = withScope(ty, () => statement(ty, body));
    return [{ op: 'block', id, body: inner, loc: ty.loc(node) }];
  } finally {
    targets.pop();
  }
}

function loopBody<T>(ty: TyperState, label: string | undefined, body: (id: number) => T): T {
  const id = ty.nextTarget++;
  const targets = ty.frame.targets;
  targets.push({ id, label, isLoop: true });
  try {
    return body(id);
  } finally {
    targets.pop();
  }
}

function forLoop(ty: TyperState, node: ESTree.ForStatement, label: string | undefined): Stmt[] {
  return withScope(ty, () => {
    const init: Stmt[] = [];
    if (node.init) {
      if (node.init.type === 'VariableDeclaration') init.push(...declaration(ty, node.init));
      else init.push(expressionStatement(ty, node.init));
    }
    return loopBody(ty, label, (id) => {
      const test = node.test ? truthy(ty, expression(ty, node.test), node.test) : undefined;
      const body = withScope(ty, () => statement(ty, node.body));
      const update: Stmt[] = node.update ? [expressionStatement(ty, node.update)] : [];
      return [...init, { op: 'loop', id, test, body, update, postTest: undefined, loc: ty.loc(node) } as Stmt];
    });
  });
}

function whileLoop(ty: TyperState, node: ESTree.WhileStatement, label: string | undefined): Stmt[] {
  return loopBody(ty, label, (id) => {
    const test = truthy(ty, expression(ty, node.test), node.test);
    const body = withScope(ty, () => statement(ty, node.body));
    return [{ op: 'loop', id, test, body, update: [], postTest: undefined, loc: ty.loc(node) }];
  });
}

function doWhileLoop(ty: TyperState, node: ESTree.DoWhileStatement, label: string | undefined): Stmt[] {
  return loopBody(ty, label, (id) => {
    const body = withScope(ty, () => statement(ty, node.body));
    const postTest = truthy(ty, expression(ty, node.test), node.test);
    return [{ op: 'loop', id, test: undefined, body, update: [], postTest, loc: ty.loc(node) }];
  });
}

function jump(ty: TyperState, node: ESTree.BreakStatement | ESTree.ContinueStatement): Stmt {
  const isBreak = node.type === 'BreakStatement';
  const word = isBreak ? 'break' : 'continue';
  const label = node.label?.name;
  const targets = ty.frame.targets;
  for (let i = targets.length - 1; i >= 0; i--) {
    const t = targets[i]!;
    if (label !== undefined ? t.label === label : t.isLoop) {
      if (!isBreak && !t.isLoop) ty.typeError(node, `'continue ${label}' names a block, not a loop`);
      return isBreak
        ? { op: 'break', target: t.id, loc: ty.loc(node) }
        : { op: 'continue', target: t.id, loc: ty.loc(node) };
    }
  }
  return ty.typeError(
    node,
    label !== undefined ? `'${word} ${label}': no enclosing statement has that label` : `'${word}' outside a loop`,
  );
}

function gridSync(ty: TyperState, call: ESTree.CallExpression): Stmt {
  const m = call.callee as ESTree.MemberExpression;
  const name = (m.object as ESTree.Identifier).name;
  const method = (m.property as ESTree.Identifier).name;
  if (method !== 'sync') ty.typeError(call, `the grid group '${name}' has sync() only`);
  if (call.arguments.length !== 0) ty.typeError(call, `${name}.sync() takes no arguments`);
  ty.collectives.grid = true;
  return { op: 'barrier', scope: 'grid', loc: ty.loc(call) };
}
