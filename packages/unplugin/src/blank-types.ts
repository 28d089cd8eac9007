/** A node of @babel/parser's tree, as far as the plugin reads it. */
export interface AstNode {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly loc: { readonly start: { readonly line: number; readonly column: number } };
  readonly [key: string]: unknown;
}

/** Whether `value` is a node of the tree. */
export function isNode(value: unknown): value is AstNode {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { start?: unknown }).start === 'number'
  );
}

/** Calls `visit` on every node under `node` (itself included), parents first; `visit` returning false skips a node's children. */
export function walk(
  node: unknown,
  visit: (node: AstNode, parent: AstNode | undefined) => boolean | undefined,
  parent?: AstNode,
): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit, parent);
    return;
  }
  if (!isNode(node)) return;
  if (visit(node, parent) === false) return;
  for (const key in node) {
    if (
      key === 'loc' ||
      key === 'start' ||
      key === 'end' ||
      key === 'type' ||
      key === 'extra' ||
      key === 'leadingComments' ||
      key === 'trailingComments' ||
      key === 'innerComments'
    )
      continue;
    const child = node[key];
    if (child !== null && typeof child === 'object') walk(child, visit, node);
  }
}

// TypeScript nodes that are only types: their whole text goes
const TYPE_ONLY = new Set(['TSTypeAnnotation', 'TSTypeParameterDeclaration', 'TSTypeParameterInstantiation']);
// TypeScript nodes around an expression: the text after the expression goes (`x as T`, `x satisfies T`, `x!`)
const AFTER_EXPRESSION = new Set(['TSAsExpression', 'TSSatisfiesExpression', 'TSNonNullExpression']);

/**
 * The JavaScript of `node`'s text (a function of a TypeScript file) with the
 * same layout: every character of a type annotation, type parameter list,
 * `as T`, `satisfies T`, non-null `!`, `<T>x` assertion and optional `?` is
 * replaced by a space (line breaks stay), so that an offset in the result
 * is the same offset in the text as written.
 */
export function blankTypes(code: string, node: AstNode): string {
  const chars = code.slice(node.start, node.end).split('');
  const blank = (from: number, to: number): void => {
    for (let i = Math.max(from, node.start); i < Math.min(to, node.end); i++) {
      const c = chars[i - node.start];
      if (c !== '\n' && c !== '\r') chars[i - node.start] = ' ';
    }
  };
  walk(node, (n) => {
    if (TYPE_ONLY.has(n.type)) {
      blank(n.start, n.end);
      return false;
    }
    if (AFTER_EXPRESSION.has(n.type)) {
      blank((n['expression'] as AstNode).end, n.end);
    } else if (n.type === 'TSTypeAssertion') {
      blank(n.start, (n['expression'] as AstNode).start);
    } else if (n.type === 'Identifier' && n['optional'] === true) {
      // `a?: number`: the `?` between the name and its annotation
      const name = n['name'] as string;
      const at = code.indexOf('?', n.start + name.length);
      if (at !== -1 && at < n.end) blank(at, at + 1);
    }
    return true;
  });
  return chars.join('');
}
