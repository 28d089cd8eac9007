#!/usr/bin/env node
// Bundles a package's compiled entry (dist/index.js, made by tsc) into one
// module, in place, so that importing the package loads one file instead of
// dozens: Node's ESM loader costs about half a millisecond a module, which
// was a third of a cold start (process start → checked JIT result). Only
// the package's own modules are inlined; its dependencies (other packages,
// node builtins) stay imports. The per-module files and declarations stay
// in dist/ for the types. Run from a package folder after `tsc -b`.
// Packages with several entries that share modules (memory-view's ./native)
// are not bundled: two copies of a module would make two copies of a class.
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { rolldown } from 'rolldown';

const packageDir = process.cwd();
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const entries = Object.keys(manifest.exports ?? {}).filter((key) => key !== './package.json');
if (entries.length !== 1 || entries[0] !== '.') {
  console.error(`bundle-entry: ${manifest.name} has the entries ${entries.join(', ')}; only a single '.' entry is bundled`);
  process.exit(2);
}
const entry = join(packageDir, 'dist', 'index.js');
// tsc's own entry is kept beside the bundle and bundled from on every build:
// tsc re-emits only the modules whose sources changed, so the bundle must be
// made again from the current per-module files each time.
const unbundled = join(packageDir, 'dist', 'index.unbundled.js');
const output = join(packageDir, 'dist', 'index.bundle.tmp.js');
const emittedByTsc = /^(?:import|export) [^;]*from '\.\.?\//m.test(readFileSync(entry, 'utf8'));
if (emittedByTsc) copyFileSync(entry, unbundled);
else if (!existsSync(unbundled)) {
  console.error(`bundle-entry: ${entry} is neither tsc's entry nor has its ${unbundled}; remove dist/ and build again`);
  process.exit(1);
}
const input = unbundled;

const bundle = await rolldown({
  input,
  platform: 'node',
  // everything that is not a relative path is a dependency: it stays an import
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  logLevel: 'warn',
});
await bundle.write({ file: output, format: 'esm', sourcemap: false });
await bundle.close();
renameSync(output, entry);
rmSync(`${output}.map`, { force: true });
