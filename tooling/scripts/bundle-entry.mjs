#!/usr/bin/env node
// Bundles a package's compiled entries (dist/index.js and any other
// dist/NAME.js or dist/FOLDER/NAME.js that package.json `exports` names, made by tsc), in
// place, so that importing the package loads one file instead of dozens:
// Node's ESM loader costs about half a millisecond a module, which was a
// third of a cold start (process start → checked JIT result). Only the
// package's own modules are inlined; its dependencies (other packages, node
// builtins) stay imports. Several entries are bundled in one pass: a module
// that two entries use goes into one shared chunk (dist/chunks/), so there is
// never a second copy of a module (and so of a class). The per-module
// declarations stay in dist/ for the types; the per-module .js files stay
// there too (they are what the next build bundles from) but are not shipped:
// package.json `files` names the entries, the chunks and the declarations.
// Run from a package folder after `tsc -b`.
// Entries may sit in subfolders (memory-view's ./native, ./adapters/arrow):
// each is bundled in its place, dist/native/index.js.
// Comments are left out of the bundles but for legal notices and the
// annotations (`/* @__PURE__ */`) that let an app's bundler drop what it
// does not use: the doc comments live in the declarations, and V8 reads
// every byte of a module when it is imported (about a fifth of each bundle
// was comments; ~10 ms of a cold `import 'cuda-js'` on a 2-core container).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rolldown } from 'rolldown';

const packageDir = process.cwd();
const dist = join(packageDir, 'dist');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const entries = [];
for (const [key, value] of Object.entries(manifest.exports ?? {})) {
  if (key === './package.json') continue;
  const target = typeof value === 'string' ? value : value?.default;
  const m = /^\.\/dist\/((?:[\w-]+\/)*[\w-]+)\.js$/.exec(target ?? '');
  if (!m) {
    console.error(
      `bundle-entry: ${manifest.name} exports ${key} as ${JSON.stringify(target)}; only dist/NAME.js and dist/FOLDER/NAME.js entries are bundled`,
    );
    process.exit(2);
  }
  entries.push(m[1]);
}
if (!entries.includes('index')) {
  console.error(`bundle-entry: ${manifest.name} has no '.' entry at ./dist/index.js`);
  process.exit(2);
}

// tsc's own entry is kept beside the bundle and bundled from on every build:
// tsc re-emits only the modules whose sources changed, so the bundle must be
// made again from the current per-module files each time.
const input = {};
for (const name of entries) {
  const entry = join(dist, `${name}.js`);
  const unbundled = join(dist, `${name}.unbundled.js`);
  const emittedByTsc = /^(?:import|export) (?:[^;]*from )?'\.\.?\//m.test(readFileSync(entry, 'utf8'));
  if (emittedByTsc) copyFileSync(entry, unbundled);
  else if (!existsSync(unbundled)) {
    console.error(
      `bundle-entry: ${entry} is neither tsc's entry nor has its ${unbundled}; remove dist/ and build again`,
    );
    process.exit(1);
  }
  input[name] = unbundled;
}

// An entry that imports another (memory-view's ./adapters loads ./adapters/ndarray)
// imports what the other entry is bundled from, so that its modules are
// bundled once, not copied into both; tsc's emitted file at the entry's path
// is the previous build's bundle after the first build.
const unbundledOf = new Map(entries.map((name) => [join(dist, `${name}.js`), input[name]]));
const entriesImportUnbundled = {
  name: 'entries-import-unbundled',
  resolveId(source, importer) {
    if (importer === undefined || !source.startsWith('.')) return null;
    const path = resolve(dirname(importer), source);
    // the package's own modules keep their effects: its package.json `sideEffects` describes the files it ships
    // (the bundles and chunks), for its users' bundlers, not the per-module files bundled here
    return { id: unbundledOf.get(path) ?? path, moduleSideEffects: true };
  },
};

const output = join(dist, '.bundle.tmp');
rmSync(output, { recursive: true, force: true });
const bundle = await rolldown({
  input,
  platform: 'node',
  // everything that is not a relative path is a dependency: it stays an import
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  // the package's version, written into its code: a bundle of the user's app that inlines the package has no package.json to read it from
  transform: { define: { __CUDA_JS_PACKAGE_VERSION__: JSON.stringify(String(manifest.version)) } },
  plugins: [entriesImportUnbundled],
  logLevel: 'warn',
});
await bundle.write({
  dir: output,
  format: 'esm',
  sourcemap: false,
  comments: { legal: true, annotation: true, jsdoc: false },
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
});
await bundle.close();

// An export under a renamed local (`cuda$1 as cuda`) is what the bundlers of
// the package's users hoist into their code: a kernel's text would then read
// `cuda$1.grid(1)`. The bundler renames a module's binding where another
// module declares the same name or reads it as a global (a `declare const`).
const written = [
  ...entries.map((name) => join(output, `${name}.js`)),
  ...(existsSync(join(output, 'chunks'))
    ? readdirSync(join(output, 'chunks')).map((f) => join(output, 'chunks', f))
    : []),
];
const renamed = written.flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/^export \{([^}]*)\}/gm)].flatMap((m) =>
    [...m[1].matchAll(/\b([\w$]+)\$\d+ as \1\b/g)].map((r) => r[1]),
  ),
);
if (renamed.length > 0) {
  rmSync(output, { recursive: true, force: true });
  console.error(
    `bundle-entry: ${manifest.name} exports ${renamed.join(', ')} under renamed locals (${renamed.map((n) => `${n}$1`).join(', ')}): another module declares or reads a global of the same name; rename that one`,
  );
  process.exit(1);
}

const chunks = join(dist, 'chunks');
rmSync(chunks, { recursive: true, force: true });
if (existsSync(join(output, 'chunks'))) {
  mkdirSync(chunks);
  for (const file of readdirSync(join(output, 'chunks'))) renameSync(join(output, 'chunks', file), join(chunks, file));
}
for (const name of entries) renameSync(join(output, `${name}.js`), join(dist, `${name}.js`));
rmSync(output, { recursive: true, force: true });
