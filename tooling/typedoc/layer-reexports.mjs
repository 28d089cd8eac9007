// A TypeDoc plugin: one page per concept. In `entryPointStrategy: packages`
// each package is converted on its own, so a name that a package re-exports
// from a lower layer (core's ClosedResourceError from bindings, jit's scalar
// makers from core, and every name of the umbrella `cuda-js`) would get a
// second, identical page there. This plugin drops, from each package, the
// top-level exports whose declaration lives in another workspace package (a
// `.d.ts` in that package's dist/, which is what the re-export resolves to),
// so that each name is documented once, by the package that defines it;
// links to it from the re-exporting package go to that page. Each package's
// README and entry comment say what it re-exports.
import { Converter, ReflectionKind } from 'typedoc';
import ts from 'typescript';

/** `packages/NAME/dist/...d.ts` or `node_modules/@cuda-js/NAME/...`: a declaration of another workspace package. */
const FOREIGN =
  /[\\/](?:packages[\\/][^\\/]+[\\/]dist|node_modules[\\/](?:@cuda-js[\\/][^\\/]+|cuda-js))[\\/].*\.d\.[cm]?ts$/;

/** @param {import('typedoc').Application} app */
export function load(app) {
  /** @type {Set<import('typedoc').Reflection>} */
  const foreign = new Set();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.parent?.kindOf(ReflectionKind.Project | ReflectionKind.Module)) return;
    let symbol = context.getSymbolFromReflection(reflection);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = context.checker.getAliasedSymbol(symbol);
    const files = (symbol?.declarations ?? []).map((d) => d.getSourceFile().fileName);
    if (files.length > 0 && files.every((file) => FOREIGN.test(file))) foreign.add(reflection);
  });
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    // Removing a reflection marks its symbol as removed, which would make every
    // reference to it plain text; these symbols are not removed but documented by
    // another package, so the marks are taken back: the references then keep their
    // symbol and the merged project links them to the defining package's page.
    const removed = context.project.removedSymbolIds;
    const before = new Set([...removed.keys()].map((id) => id.getStableKey()));
    for (const reflection of foreign) context.project.removeReflection(reflection);
    for (const id of [...removed.keys()]) if (!before.has(id.getStableKey())) removed.delete(id);
    foreign.clear();
  });
}
