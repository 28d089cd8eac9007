import type { Expr, Stmt } from '../types/typed-ir.js';

/** Calls `visit` on each direct sub-expression of `e`. */
export function forEachChild(e: Expr, visit: (child: Expr) => void): void {
  switch (e.op) {
    case 'const':
    case 'local':
    case 'special':
    case 'dim':
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
      case 'break':
      case 'continue':
      case 'return':
        break;
    }
  }
}
