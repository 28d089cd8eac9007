import type { ESTree } from 'meriyah';
import { INTRINSIC_NAMES } from './intrinsic-names.js';

/** The modules whose exports kernels name (`cuda`, the casts): an import from one of them is an import of the JIT's own names. */
export const JIT_MODULES: ReadonlySet<string> = new Set(['cuda-js', '@cuda-js/jit', '@cuda-js/core']);

/** Calls `visit` with every name node of the tree that is a reference or a declaration: not a member's property, not an object literal's key. */
export function forEachName(root: unknown, visit: (node: ESTree.Identifier) => void): void {
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    const n = node as ESTree.Node & Record<string, unknown>;
    if (typeof n.type !== 'string') return;
    if (n.type === 'Identifier') return visit(n as ESTree.Identifier);
    if (n.type === 'MemberExpression') {
      const m = n as ESTree.MemberExpression;
      walk(m.object);
      if (m.computed) walk(m.property);
      return;
    }
    if (n.type === 'Property') {
      const p = n as ESTree.Property;
      if (p.computed) walk(p.key);
      walk(p.value);
      return;
    }
    for (const key in n) if (key !== 'start' && key !== 'end' && key !== 'type') walk(n[key]);
  };
  walk(root);
}

/** The names that a function declares: its parameters and every variable and function declared inside it. */
export function declaredNames(params: readonly ESTree.Node[], body: unknown): Set<string> {
  const names = new Set<string>();
  for (const p of params) if (p.type === 'Identifier') names.add(p.name);
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    const n = node as ESTree.Node & Record<string, unknown>;
    if (n.type === 'VariableDeclarator' && (n as ESTree.VariableDeclarator).id.type === 'Identifier')
      names.add(((n as ESTree.VariableDeclarator).id as ESTree.Identifier).name);
    if ((n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression') && (n as ESTree.FunctionDeclaration).id)
      names.add((n as ESTree.FunctionDeclaration).id!.name);
    if (n.type === 'CatchClause' && (n as ESTree.CatchClause).param?.type === 'Identifier')
      names.add(((n as ESTree.CatchClause).param as ESTree.Identifier).name);
    for (const key in n) if (key !== 'start' && key !== 'end' && key !== 'type') walk(n[key]);
  };
  walk(body);
  return names;
}

// How scope-hoisting bundlers rename a top-level name that another module
// also declares: rollup and rolldown append `$1`, esbuild a number (`cuda2`).
const RENAMED_SUFFIX = /^(?:\$\d+|\d+)$/;

/** The JIT's own name (`cuda`, `f32`) that `name` is a bundler's renaming of (`cuda$1`, `cuda2`, `f322`), or undefined. */
export function bundlerRenamedIntrinsic(name: string): string | undefined {
  if (INTRINSIC_NAMES.has(name)) return undefined;
  let found: string | undefined;
  for (const own of INTRINSIC_NAMES) {
    if (name.startsWith(own) && RENAMED_SUFFIX.test(name.slice(own.length)) && own.length > (found?.length ?? 0))
      found = own;
  }
  return found;
}

/**
 * Gives the JIT's own names back to free names that stand for them: the
 * local names of imports that the build plugin recorded (`gpu` of
 * `import { cuda as gpu }`), and names that a scope-hoisting bundler renamed
 * (`cuda$1`, `f32$1`, `cuda2`). Only names the function does not declare
 * itself are renamed; positions are kept, so messages still point at the
 * text as written.
 */
export function restoreJitNames(
  params: readonly ESTree.Node[],
  body: unknown,
  aliases: ReadonlyMap<string, string>,
): void {
  const declared = declaredNames(params, body);
  forEachName(body, (node) => {
    if (declared.has(node.name)) return;
    const name = aliases.get(node.name) ?? bundlerRenamedIntrinsic(node.name);
    if (name !== undefined && !declared.has(name)) node.name = name;
  });
}
