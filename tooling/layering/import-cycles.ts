// Value-import cycles among the modules of one package's src/: a cycle makes
// bundlers warn (rollup: "Circular dependency") and makes the order in which
// the modules' top levels run depend on which one is imported first. Type-only
// imports (`import type`, `export type ... from`) vanish from the emitted
// JavaScript and do not count; under verbatimModuleSyntax an
// `import { type A } from` stays in the output (as `import {} from`), so it counts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The relative modules that `file` imports for their values, as absolute `.ts` paths. */
export function valueImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly || statement.moduleSpecifier === undefined) continue;
      specifier = statement.moduleSpecifier;
    }
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    out.push(resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts')));
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !/\.test\.ts$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * The value imports among the non-test modules under `srcDir`, as paths
 * relative to `srcDir`: per module, the package's modules that it imports for
 * their values, sorted.
 */
export function valueImportGraph(srcDir: string): Map<string, string[]> {
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  return new Map(
    files.map((f) => [
      relative(srcDir, f),
      valueImports(f)
        .filter((t) => known.has(t))
        .map((t) => relative(srcDir, t))
        .sort(),
    ]),
  );
}

/**
 * Each value-import cycle among the non-test modules under `srcDir`, as the
 * paths (relative to `srcDir`) around it, the first repeated at the end; one
 * cycle per strongly connected group of modules (empty when there is none).
 */
export function valueImportCycles(srcDir: string): string[][] {
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, valueImports(f).filter((t) => known.has(t))]));
  // Tarjan's strongly connected components, then one cycle through each non-trivial one.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) groups.push(group);
    }
  };
  for (const f of files) if (!indexOf.has(f)) visit(f);
  return groups.map((group) => {
    const members = new Set(group);
    const start = [...group].sort()[0]!;
    // breadth-first from start back to start, inside the group
    const previous = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    for (let i = 0; i < queue.length && last === undefined; i++) {
      const v = queue[i]!;
      for (const w of edges.get(v) ?? []) {
        if (!members.has(w)) continue;
        if (w === start) {
          last = v;
          break;
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [start];
    for (let v = last; v !== undefined && v !== start; v = previous.get(v)) path.splice(1, 0, v);
    path.push(start);
    return path.map((p) => relative(srcDir, p));
  });
}
