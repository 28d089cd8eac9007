#!/usr/bin/env node
// Builds a native package's addon as the prebuilds it ships, run from the
// package folder by its build: native/binding.gyp →
// prebuilds/<platform>-<arch>/<name>.node, for this machine and, on Linux,
// cross-compiled for the other shipped architecture where its toolchain is
// installed (native-prebuilds.mjs; skipped with the reason printed where not).
// node-gyp-build finds the one for the running machine at run time.
//   node ../../tooling/scripts/build-prebuilds.mjs <name> [--if-needed] [--optional]
// --if-needed: skips each prebuild that exists and whose native/ sources did not
//   change since it was built (a hash of native/ is kept in native/build/).
// --optional: without a C++ compiler, builds nothing and says so (the package
//   works without its addon) instead of failing.
// A source build (node-gyp in native/, to native/build/Release) is the fallback
// where no prebuild fits; the loaders prefer it when it is there, so it is
// removed when this machine's prebuild is rebuilt.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { buildPrebuild, prebuildTargets } from './native-prebuilds.mjs';

const name = process.argv[2];
if (!name || name.startsWith('--')) {
  console.error('usage: build-prebuilds.mjs <addon name> [--if-needed] [--optional]');
  process.exit(2);
}
const pkg = process.cwd();
const label = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).name;
const nativeDir = join(pkg, 'native');
const hostFolder = `${process.platform}-${process.arch}`;

const cxx = process.env.CXX ?? 'c++';
if (process.argv.includes('--optional') && spawnSync(cxx, ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.warn(`${label}: no C++ compiler (${cxx}): the native addon ${name} is not built`);
  process.exit(0);
}

// The host's stamp keeps the name it had before cross prebuilds existed.
const stampOf = (folder) =>
  join(nativeDir, 'build', folder === hostFolder ? 'prebuild-source-hash.txt' : `prebuild-source-hash-${folder}.txt`);
const prebuildOf = (folder) => join(pkg, 'prebuilds', folder, `${name}.node`);

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
const upToDate = (folder) =>
  existsSync(prebuildOf(folder)) && existsSync(stampOf(folder)) && readFileSync(stampOf(folder), 'utf8') === wanted;
const targets = prebuildTargets().filter((target) => {
  if (target.skipped) {
    // One built from other sources must not ship as if it were current.
    const stale = existsSync(prebuildOf(target.folder)) && !upToDate(target.folder);
    if (stale) rmSync(dirname(prebuildOf(target.folder)), { recursive: true, force: true });
    console.warn(
      `${label}: prebuilds/${target.folder} not built${stale ? ' (the one from older sources was removed)' : ''}: ${target.skipped}`,
    );
  }
  return !target.skipped && !(process.argv.includes('--if-needed') && upToDate(target.folder));
});

if (targets.some((target) => target.folder === hostFolder)) {
  // The addon of the old layout (build/Release at the package root) would be found before the prebuild,
  // and a source build in native/build would be preferred by the loader to the fresh prebuild.
  rmSync(join(pkg, 'build', 'Release'), { recursive: true, force: true });
  rmSync(join(nativeDir, 'build', 'Release', `${name}.node`), { force: true });
}
for (const target of targets) {
  const started = Date.now();
  const prebuild = await buildPrebuild({ pkg, name, target }).catch((error) => {
    console.error(
      `${label}: building the native addon ${name} for ${target.folder} failed (prebuildify, node-gyp in native/): ${error.message}`,
    );
    process.exit(1);
  });
  if (!existsSync(prebuild)) {
    console.error(`${label}: prebuildify finished but ${relative(pkg, prebuild)} is missing`);
    process.exit(1);
  }
  mkdirSync(dirname(stampOf(target.folder)), { recursive: true });
  writeFileSync(stampOf(target.folder), wanted);
  console.log(
    `${label}: built ${relative(pkg, prebuild)} (${(statSync(prebuild).size / 1024).toFixed(0)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
