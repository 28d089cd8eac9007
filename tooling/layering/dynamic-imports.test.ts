// A dynamic import of a module named at run time (`import(url)`) makes webpack
// warn "Critical dependency: the request of a dependency is an expression" in
// every app that bundles the package; such an import says `webpackIgnore` (and
// `@vite-ignore`), so that bundlers leave it to Node. `require(name)` likewise.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** The dynamic imports and requires in `text` whose module is not a string literal and that bundlers are not told to ignore. */
function expressionImports(text: string): string[] {
  const code = text.replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
  return [
    ...code.matchAll(/\b(import|require)\(\s*(?!['"]|`[^`$]*`)(?!\/\*\s*webpackIgnore:\s*true\s*\*\/)([^)]{0,60})/g),
  ].map((m) => `${m[1]}(${m[2]}`);
}

describe('dynamic imports that bundlers cannot resolve', () => {
  // bindings loads its addon with require(path) (its loader is being reworked); unplugin runs inside the bundler, never bundled into an app
  const NOT_CHECKED = new Set(['bindings', 'unplugin']);
  it('are marked for bundlers to leave alone, in every package that apps bundle', () => {
    const found: string[] = [];
    for (const dir of readdirSync(join(root, 'packages')).filter((d) => !NOT_CHECKED.has(d))) {
      const src = join(root, 'packages', dir, 'src');
      let files: string[];
      try {
        files = readdirSync(src, { recursive: true, encoding: 'utf8' });
      } catch {
        continue;
      }
      for (const f of files) {
        if (!f.endsWith('.ts') || f.endsWith('.d.ts') || /\.test(-support)?\.ts$/.test(f) || f.includes('test-support'))
          continue;
        for (const hit of expressionImports(readFileSync(join(src, f), 'utf8')))
          found.push(`${relative(root, join(src, f))}: ${hit}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('finds an unmarked one, and not a marked or a literal one', () => {
    expect(expressionImports('const m = await import(url);')).toEqual(['import(url']);
    expect(expressionImports("const m = await import('./x.js'); require('y');")).toEqual([]);
    expect(expressionImports('const m = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);')).toEqual([]);
    expect(expressionImports('const m = require(name);')).toEqual(['require(name']);
  });
});
