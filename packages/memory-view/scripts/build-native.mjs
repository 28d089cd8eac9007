#!/usr/bin/env node
// Builds the optional native DLPack helper (native/ → native/build/Release/*.node)
// with node-gyp, using the headers of the running Node.js where they are
// installed next to it, so that nothing is downloaded. Without a C++ compiler
// the helper is skipped with a note: the main entry needs no native code.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const nativeDir = join(here, '..', 'native');
const require = createRequire(import.meta.url);

function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const beside = join(dirname(process.execPath), '..');
  return existsSync(join(beside, 'include', 'node', 'node_api.h')) ? beside : undefined;
}

const cxx = process.env.CXX ?? 'c++';
if (spawnSync(cxx, ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.warn(`[memory-view] no C++ compiler (${cxx}): the native DLPack helper is not built; @cuda-js/memory-view/native will report it`);
  process.exit(0);
}
const dir = nodeDir();
const args = [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--loglevel', 'warn', '--directory', nativeDir, '--jobs', 'max', ...(dir ? ['--nodedir', dir] : [])];
const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
if (result.status !== 0) {
  console.error('[memory-view] building the native DLPack helper failed');
  process.exit(result.status ?? 1);
}
