#!/usr/bin/env node
// Builds the native addon as the prebuild that the package ships:
// native/binding.gyp → prebuilds/<platform>-<arch>/cuda_js_bindings.node, with
// prebuildify (N-API, so one build serves every Node.js >= 20; stripped).
// node-gyp-build finds it there at run time (src/native.ts).
//
// With --if-needed, skips the build when the prebuild exists and no native
// source changed since it was built (a hash of native/ is kept in native/build/).
// A source build (node-gyp in native/, to native/build/Release) is the
// fallback where no prebuild fits; the loader prefers it when it is there.
// Headers come from beside the running Node.js where they are installed
// (Debian's and the official tarballs' layout), so nothing is downloaded.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = 'cuda_js_bindings';
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(pkg, 'native');
const prebuild = join(pkg, 'prebuilds', `${process.platform}-${process.arch}`, `${NAME}.node`);
const stamp = join(nativeDir, 'build', 'prebuild-source-hash.txt');

function sourceHash() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (entry === 'build' && dir === nativeDir) continue;
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(pkg, path)).update(readFileSync(path));
    }
  };
  walk(nativeDir);
  return hash.digest('hex');
}

const wanted = sourceHash();
if (process.argv.includes('--if-needed') && existsSync(prebuild) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
  process.exit(0);
}

// The addon of the old layout (build/Release at the package root) would be found before the prebuild.
rmSync(join(pkg, 'build', 'Release'), { recursive: true, force: true });

const require = createRequire(import.meta.url);
// Built from a copy in build/prebuild (inside the package, so that binding.gyp still finds
// node-addon-api), so that a source build in native/build is neither used nor clobbered;
// the source build is removed, since the loader would prefer it to the fresh prebuild.
const workDir = join(pkg, 'build', 'prebuild');
rmSync(workDir, { recursive: true, force: true });
cpSync(nativeDir, workDir, { recursive: true, filter: (source) => source !== join(nativeDir, 'build') });
rmSync(join(nativeDir, 'build', 'Release', `${NAME}.node`), { force: true });
const prebuildify = require('prebuildify');
const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');

// node-gyp reads its options from npm_config_* variables (prebuildify passes the environment on).
const beside = join(dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && existsSync(join(beside, 'include', 'node', 'node_api.h'))) process.env.npm_config_nodedir = beside;
process.env.npm_config_loglevel ??= 'warn';
process.env.JOBS ??= String(Math.max(1, Math.min(4, availableParallelism())));

const started = Date.now();
await new Promise((resolve, reject) => {
  prebuildify({ cwd: workDir, out: pkg, name: NAME, napi: true, targets: [process.versions.node], strip: true, nodeGyp, quiet: false }, (error) => (error ? reject(error) : resolve()));
}).catch((error) => {
  console.error(`@cuda-js/bindings: building the native addon failed (prebuildify, node-gyp in native/): ${error.message}`);
  process.exit(1);
});
if (!existsSync(prebuild)) {
  console.error(`@cuda-js/bindings: prebuildify finished but ${relative(pkg, prebuild)} is missing`);
  process.exit(1);
}
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, wanted);
console.log(`@cuda-js/bindings: built ${relative(pkg, prebuild)} (${(statSync(prebuild).size / 1024).toFixed(0)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
