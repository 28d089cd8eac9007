#!/usr/bin/env node
// Builds the optional native DLPack helper as the prebuild that the package
// ships: native/binding.gyp → prebuilds/<platform>-<arch>/memory_view_dlpack.node,
// with prebuildify (N-API, so one build serves every Node.js >= 20; stripped).
// Headers come from beside the running Node.js where they are installed, so
// nothing is downloaded. Without a C++ compiler the helper is skipped with a
// note: the main entry needs no native code.
//
// It also copies the protocol spec (docs/protocols.md of the repository) into
// the package, which ships it: the README points third-party authors at it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = 'memory_view_dlpack';
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(pkg, 'native');
const prebuild = join(pkg, 'prebuilds', `${process.platform}-${process.arch}`, `${NAME}.node`);
const require = createRequire(import.meta.url);

const spec = join(pkg, '..', '..', 'docs', 'protocols.md');
if (existsSync(spec)) {
  mkdirSync(join(pkg, 'docs'), { recursive: true });
  copyFileSync(spec, join(pkg, 'docs', 'protocols.md'));
}

if (process.argv.includes('--docs-only')) process.exit(0);

const cxx = process.env.CXX ?? 'c++';
if (spawnSync(cxx, ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.warn(`[memory-view] no C++ compiler (${cxx}): the native DLPack helper is not built; @cuda-js/memory-view/native will report it`);
  process.exit(0);
}

// node-gyp reads its options from npm_config_* variables (prebuildify passes the environment on).
const beside = join(dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && existsSync(join(beside, 'include', 'node', 'node_api.h'))) process.env.npm_config_nodedir = beside;
process.env.npm_config_loglevel ??= 'warn';
process.env.JOBS ??= String(Math.max(1, Math.min(4, availableParallelism())));

// Built from a copy in build/prebuild (inside the package, so that binding.gyp still finds
// node-addon-api), so that a source build in native/build is neither used nor clobbered;
// the source build is removed, since the loader would prefer it to the fresh prebuild.
const workDir = join(pkg, 'build', 'prebuild');
rmSync(workDir, { recursive: true, force: true });
cpSync(nativeDir, workDir, { recursive: true, filter: (source) => source !== join(nativeDir, 'build') });
rmSync(join(nativeDir, 'build', 'Release', `${NAME}.node`), { force: true });
const prebuildify = require('prebuildify');
const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
await new Promise((resolve, reject) => {
  prebuildify({ cwd: workDir, out: pkg, name: NAME, napi: true, targets: [process.versions.node], strip: true, nodeGyp }, (error) => (error ? reject(error) : resolve()));
}).catch((error) => {
  console.error(`[memory-view] building the native DLPack helper failed: ${error.message}`);
  process.exit(1);
});
if (!existsSync(prebuild)) {
  console.error(`[memory-view] prebuildify finished but ${relative(pkg, prebuild)} is missing`);
  process.exit(1);
}
console.log(`[memory-view] built ${relative(pkg, prebuild)} (${(statSync(prebuild).size / 1024).toFixed(0)} KiB)`);
