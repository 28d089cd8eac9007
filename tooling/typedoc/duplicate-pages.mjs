// A TypeDoc plugin, the check that the docs keep one page per concept: the
// build fails (a TypeDoc error, so `typedoc` exits non-zero) when a module or
// namespace holds two pages of one name (a `const X` beside a `type X` that
// value-type-pairs.mjs did not fold, an interface beside a variable), or
// when the umbrella package documents a name that another package documents
// too (a re-export that layer-reexports.mjs did not drop).
import { basename } from 'node:path';
import { Application, ReflectionKind } from 'typedoc';

/** The kinds that get a page of their own (TypeDoc's default router). */
const PAGE =
  ReflectionKind.Class |
  ReflectionKind.Interface |
  ReflectionKind.Enum |
  ReflectionKind.Function |
  ReflectionKind.TypeAlias |
  ReflectionKind.Variable |
  ReflectionKind.SomeModule;

/** The package that re-exports the layers, whose own pages must be names no other package has. */
export const UMBRELLA = 'cuda-js';

/** @param {import('typedoc').Application} app */
export function load(app) {
  // In `entryPointStrategy: packages` each package's project is validated, and then the merged one, where the
  // same reflections have longer names: each problem is told once, known by the declarations it names.
  const told = new Set();
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    for (const { message, declarations } of duplicatePages(project)) {
      if (told.has(declarations)) continue;
      told.add(declarations);
      app.logger.error(`duplicate page: ${message}`);
    }
  });
}

/**
 * The duplicate pages of a project: a sentence each, and where the pages' declarations are.
 * @param {import('typedoc').ProjectReflection} project
 * @returns {{ message: string, declarations: string }[]}
 */
export function duplicatePages(project) {
  const problems = [];
  for (const container of [project, ...project.getReflectionsByKind(ReflectionKind.SomeModule)]) {
    /** @type {Map<string, import('typedoc').DeclarationReflection[]>} */
    const byName = new Map();
    for (const child of pages(container)) byName.set(child.name, [...(byName.get(child.name) ?? []), child]);
    for (const [name, same] of byName) {
      if (same.length < 2) continue;
      const kinds = same.map((r) => ReflectionKind.singularString(r.kind)).join(', ');
      const files = [...new Set(same.flatMap((r) => (r.sources ?? []).map((source) => source.fileName)))].join(', ');
      problems.push({
        message: `${container.getFullName()} has ${same.length} pages named ${name} (${kinds}; ${files})`,
        declarations: declarationsOf(same),
      });
    }
  }
  const packages = project.children?.filter((child) => child.kindOf(ReflectionKind.Module)) ?? [];
  const umbrella = packages.find((module) => module.name === UMBRELLA);
  if (umbrella) {
    const elsewhere = new Map(
      packages
        .filter((module) => module !== umbrella)
        .flatMap((module) => [...pagesBelow(module)].map((r) => [r.name, module.name])),
    );
    for (const page of pagesBelow(umbrella)) {
      const other = elsewhere.get(page.name);
      if (other !== undefined)
        problems.push({
          message: `${UMBRELLA} documents ${page.name}, which ${other} documents too`,
          declarations: `${UMBRELLA}:${page.name}`,
        });
    }
  }
  return problems;
}

/** Where reflections are declared, as one string: `name file:line` each (the file's base name: the merged project's paths are relative to another directory). */
function declarationsOf(/** @type {import('typedoc').DeclarationReflection[]} */ reflections) {
  return reflections
    .map((r) => `${r.name} ${r.sources?.[0] ? `${basename(r.sources[0].fileName)}:${r.sources[0].line}` : ''}`)
    .join(' ');
}

/** @param {import('typedoc').Reflection} container */
function pages(container) {
  return /** @type {import('typedoc').ContainerReflection} */ (container.children ?? []).filter((child) =>
    child.kindOf(PAGE),
  );
}

/** The pages of a module and of its namespaces and submodules, not the module's own. */
function* pagesBelow(/** @type {import('typedoc').Reflection} */ container) {
  for (const child of pages(container)) {
    yield child;
    if (child.kindOf(ReflectionKind.SomeModule)) yield* pagesBelow(child);
  }
}
