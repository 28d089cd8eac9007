// Resolve aliases that point each workspace package's public entries (its
// `exports`) at their TypeScript sources, so that tests and source-level
// benchmarks run without a prior `tsc` build, and the published package.json
// names only files that its tarball ships (no source-only export condition).
// `./dist/x.js` → `./src/x.ts` for every entry except `./package.json`.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `[{ find, replacement }]` for vite's `resolve.alias`, one per exported entry of each package in packages/. */
export function sourceAliases() {
  const aliases = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const manifestPath = join(root, 'packages', dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json') continue;
      const file = typeof target === 'string' ? target : target.default;
      const match = /^\.\/dist\/(.+)\.js$/.exec(file ?? '');
      if (!match) throw new Error(`${manifest.name}: export ${subpath} (${file}) does not name a file in dist/`);
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      aliases.push({
        find: new RegExp(`^${escapeRegExp(specifier)}$`),
        replacement: join(root, 'packages', dir, 'src', `${match[1]}.ts`),
      });
    }
  }
  return aliases;
}
