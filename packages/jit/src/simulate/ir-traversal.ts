import type { Expr, Stmt } from '../typing/typed-ir.js';
import { laneMaskRow } from '../intrinsics/lane-masks.js';
import { unknownNode } from '../typing/unknown-node.js';

/** Calls `visit` on each direct sub-expression of `e` (for `inline`, the top-level expressions of its body). */
export function forEachChild(e: Expr, visit: (child: Expr) => void): void {
  switch (e.op) {
    case 'const':
    case 'local':
    case 'special':
    case 'dim':
    case 'lanemask':
    case 'timer':
      return;
    case 'assign':
      return visit(e.value);
    case 'unary':
    case 'convert':
      return visit(e.operand);
    case 'binary':
    case 'compare':
    case 'logical':
      visit(e.left);
      return visit(e.right);
    case 'select':
      visit(e.test);
      visit(e.then);
      return visit(e.otherwise);
    case 'math':
      return e.args.forEach(visit);
    case 'load':
      return e.ref.indices.forEach(visit);
    case 'store':
      e.ref.indices.forEach(visit);
      return visit(e.value);
    case 'sequence':
      e.effects.forEach(visit);
      return visit(e.value);
    case 'atomic':
      e.ref.indices.forEach(visit);
      if (e.compare) visit(e.compare);
      return visit(e.value);
    case 'shuffle':
      visit(e.mask);
      visit(e.value);
      visit(e.lane);
      return visit(e.width);
    case 'vote':
      if (e.mask) visit(e.mask);
      return visit(e.predicate);
    case 'match':
      visit(e.mask);
      return visit(e.value);
    case 'pack':
      visit(e.lo);
      return visit(e.hi);
    case 'mma':
      e.a.forEach(visit);
      e.b.forEach(visit);
      e.c.forEach(visit);
      for (const ref of e.d) ref.indices.forEach(visit);
      return;
    case 'bits':
      return visit(e.arg);
    case 'call':
      for (const a of e.args) if (a.kind === 'value') visit(a.value);
      return;
    case 'inline':
      return forEachExpr(e.body, visit);
    case 'invoke':
      return e.args.forEach(visit);
    default:
      return unknownNode(e, (detail) => new Error(`simulator: ${detail}`));
  }
}

/** Calls `visit` on each top-level expression of the statements, nested statements included. */
export function forEachExpr(statements: readonly Stmt[], visit: (e: Expr) => void): void {
  for (const s of statements) {
    switch (s.op) {
      case 'expr':
        visit(s.expr);
        break;
      case 'if':
        visit(s.test);
        forEachExpr(s.then, visit);
        forEachExpr(s.otherwise, visit);
        break;
      case 'loop':
        if (s.test) visit(s.test);
        forEachExpr(s.body, visit);
        forEachExpr(s.update, visit);
        if (s.postTest) visit(s.postTest);
        break;
      case 'block':
        forEachExpr(s.body, visit);
        break;
      case 'barrier':
        if (s.mask) visit(s.mask);
        break;
      case 'sleep':
        visit(s.nanoseconds);
        break;
      case 'print':
        s.args.forEach(visit);
        break;
      case 'break':
      case 'continue':
      case 'return':
      case 'fence':
        break;
      default:
        unknownNode(s, (detail) => new Error(`simulator: ${detail}`));
    }
  }
}

/** Every expression of the statements, at any depth (inlined bodies included). */
export function forEachDeepExpr(statements: readonly Stmt[], visit: (e: Expr) => void): void {
  const walk = (e: Expr): void => {
    visit(e);
    forEachChild(e, walk);
  };
  forEachExpr(statements, walk);
}

/** Calls `visit` on the expressions of `s` itself (not those of nested statements). */
export function forEachOwnExpr(s: Stmt, visit: (e: Expr) => void): void {
  switch (s.op) {
    case 'expr':
      return visit(s.expr);
    case 'if':
      return visit(s.test);
    case 'loop':
      if (s.test) visit(s.test);
      if (s.postTest) visit(s.postTest);
      return;
    case 'barrier':
      if (s.mask) visit(s.mask);
      return;
    case 'sleep':
      return visit(s.nanoseconds);
    case 'print':
      return s.args.forEach(visit);
    case 'block':
    case 'break':
    case 'continue':
    case 'return':
    case 'fence':
      return;
    default:
      return unknownNode(s, (detail) => new Error(`simulator: ${detail}`));
  }
}

/** Every statement, at any depth (bodies of inlined device functions included), each once. */
export function forEachDeepStmt(statements: readonly Stmt[], visit: (s: Stmt) => void): void {
  const inExpr = (e: Expr): void => {
    if (e.op === 'inline') forEachDeepStmt(e.body, visit);
    else forEachChild(e, inExpr);
  };
  for (const s of statements) {
    visit(s);
    forEachOwnExpr(s, inExpr);
    if (s.op === 'if') {
      forEachDeepStmt(s.then, visit);
      forEachDeepStmt(s.otherwise, visit);
    } else if (s.op === 'loop') {
      forEachDeepStmt(s.body, visit);
      forEachDeepStmt(s.update, visit);
    } else if (s.op === 'block') {
      forEachDeepStmt(s.body, visit);
    }
  }
}

/** Which collectives the statements use, found in the IR itself (at any depth). */
export function collectivesIn(statements: readonly Stmt[]): { block: boolean; warp: boolean; grid: boolean } {
  const found = { block: false, warp: false, grid: false };
  forEachDeepStmt(statements, (s) => {
    if (s.op === 'barrier') found[s.scope] = true;
  });
  forEachDeepExpr(statements, (e) => {
    if (e.op === 'vote') found[e.scope] = true;
    else if (
      e.op === 'shuffle' ||
      e.op === 'match' ||
      e.op === 'mma' ||
      (e.op === 'lanemask' && laneMaskRow(e.which)?.collective)
    )
      found.warp = true;
  });
  return found;
}
