import { type AstNode, isNode, walk } from './blank-types.js';

/** The names a function declares anywhere inside it: parameters, variables, functions, catch bindings, its own name. */
function declaredIn(fn: AstNode): Set<string> {
  const names = new Set<string>();
  const addPattern = (p: unknown): void => {
    if (!isNode(p)) return;
    if (p.type === 'Identifier') names.add(p['name'] as string);
    else if (p.type === 'AssignmentPattern') addPattern(p['left']);
    else if (p.type === 'RestElement') addPattern(p['argument']);
    else if (p.type === 'ArrayPattern') for (const e of p['elements'] as unknown[]) addPattern(e);
    else if (p.type === 'ObjectPattern')
      for (const prop of p['properties'] as AstNode[]) addPattern(prop.type === 'RestElement' ? prop : prop['value']);
  };
  walk(fn, (n) => {
    if (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration') {
      for (const p of n['params'] as unknown[]) addPattern(p);
      if (isNode(n['id'])) addPattern(n['id']);
    } else if (n.type === 'VariableDeclarator') addPattern(n['id']);
    else if (n.type === 'CatchClause') addPattern(n['param']);
    return true;
  });
  return names;
}

/**
 * The names that `fn` reads and does not declare (its free names), in
 * order of first use. Property names, object keys, labels and everything
 * inside TypeScript types are not names read.
 */
export function freeNames(fn: AstNode): string[] {
  const declared = declaredIn(fn);
  const free: string[] = [];
  walk(fn, (n, parent) => {
    if (
      n.type.startsWith('TS') &&
      n.type !== 'TSAsExpression' &&
      n.type !== 'TSSatisfiesExpression' &&
      n.type !== 'TSNonNullExpression' &&
      n.type !== 'TSTypeAssertion'
    )
      return false;
    if (n.type !== 'Identifier') return true;
    if (
      parent &&
      (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
      parent['property'] === n &&
      parent['computed'] !== true
    )
      return true;
    if (
      parent &&
      (parent.type === 'ObjectProperty' || parent.type === 'ObjectMethod') &&
      parent['key'] === n &&
      parent['computed'] !== true &&
      parent['shorthand'] !== true
    )
      return true;
    if (
      parent &&
      (parent.type === 'LabeledStatement' || parent.type === 'BreakStatement' || parent.type === 'ContinueStatement')
    )
      return true;
    const name = n['name'] as string;
    if (!declared.has(name) && !free.includes(name)) free.push(name);
    return true;
  });
  return free;
}
