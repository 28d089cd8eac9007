import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The package's own modules: `.ts` under `dir`, tests and declarations left out. */
function modules(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules' && entry !== 'dist' && entry !== 'generated') out.push(...modules(path));
    } else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts') && !/\.test(?:-support)?\.ts$/.test(entry)) out.push(path);
  }
  return out;
}

/**
 * The relative modules that `source` imports for their values when it loads:
 * static imports and re-exports, except those that are type-only
 * (`import type`, or every name marked `type`). Dynamic `import()` loads
 * later, and cannot close a cycle at load time.
 */
export function valueImports(source: string, fileName = 'module.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.exportClause;
      const typeOnly = statement.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) out.push(statement.moduleSpecifier.text);
    }
  }
  return out.filter((s) => s.startsWith('.'));
}

/** `./x.js` from `file` as the `.ts` module it names, if it is one of the package's. */
function moduleOf(file: string, specifier: string): string | undefined {
  const target = resolve(dirname(file), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/**
 * The cycles of value imports among the modules under `srcDir`: each strongly
 * connected group of two or more modules (or one that imports itself), as
 * paths relative to `srcDir`, sorted. A cycle makes the order in which the
 * modules of a package load depend on which one is imported first, and
 * bundlers warn of each.
 */
export function valueImportCycles(srcDir: string): string[][] {
  const files = modules(srcDir);
  const edges = new Map(files.map((f) => [f, valueImports(readFileSync(f, 'utf8'), f).flatMap((s) => moduleOf(f, s) ?? [])]));
  // Tarjan's strongly connected components
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) groups.push(group.map((f) => relative(srcDir, f)).sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return groups;
}
