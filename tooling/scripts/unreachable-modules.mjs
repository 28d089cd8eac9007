// The shipped JavaScript modules of a package that nothing loads: neither an
// entry of its manifest (`exports`, `main`, `bin`) nor a relative import
// (static or dynamic) of a module that is loaded. A tarball ships only what
// some user path can load; tsc's per-module files left beside a bundled entry
// are dead weight (jit shipped 218 files for one bundle). pack-smoke.mjs
// checks each tarball with it.
import { posix } from 'node:path';

/** Relative imports as tsc and rolldown write them: `import/export ... from` at a line's start, `import('...')` on a line that is no comment. */
const RELATIVE_IMPORT =
  /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]|^(?![ \t]*(?:\*|\/\/)).*?\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/**
 * The relative specifiers a module's text imports.
 * @param {string} text
 * @returns {string[]}
 */
export function relativeImports(text) {
  return [...text.matchAll(RELATIVE_IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/**
 * The entry points a manifest names, as paths inside the package (`dist/index.js`).
 * @param {{ exports?: unknown, main?: string, bin?: string | Record<string, string> }} manifest
 * @returns {string[]}
 */
export function manifestEntries(manifest) {
  /** @param {unknown} value @returns {string[]} */
  const targets = (value) =>
    typeof value === 'string'
      ? [value]
      : value !== null && typeof value === 'object'
        ? Object.values(value).flatMap(targets)
        : [];
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return [...targets(manifest.exports ?? {}), ...(manifest.main ? [manifest.main] : []), ...bins].map((p) =>
    posix.normalize(p.replace(/^\.\//, '')),
  );
}

/**
 * The modules of `files` (path → text, the package's .js/.cjs/.mjs files) that no entry reaches.
 * @param {ReadonlyMap<string, string>} files
 * @param {readonly string[]} entries
 * @returns {string[]}
 */
export function unreachableModules(files, entries) {
  const reached = new Set();
  const pending = entries.filter((entry) => files.has(entry));
  while (pending.length > 0) {
    const file = /** @type {string} */ (pending.pop());
    if (reached.has(file)) continue;
    reached.add(file);
    for (const specifier of relativeImports(files.get(file) ?? '')) {
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      if (files.has(target) && !reached.has(target)) pending.push(target);
    }
  }
  return [...files.keys()].filter((file) => !reached.has(file)).sort();
}
