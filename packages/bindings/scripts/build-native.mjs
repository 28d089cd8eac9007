#!/usr/bin/env node
// Builds the native addon with node-gyp. With --if-needed, skips the build when
// the addon exists and no native source changed since it was built (a hash of
// binding.gyp and native/ is kept beside the addon).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const addon = join(pkg, 'build', 'Release', 'cuda_js_bindings.node');
const stamp = join(pkg, 'build', 'source-hash.txt');

function sourceHash() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(path.slice(pkg.length)).update(readFileSync(path));
    }
  };
  hash.update(readFileSync(join(pkg, 'binding.gyp')));
  walk(join(pkg, 'native'));
  hash.update(process.version);
  return hash.digest('hex');
}

const wanted = sourceHash();
if (process.argv.includes('--if-needed') && existsSync(addon) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
  process.exit(0);
}

// Build against the headers of the running Node.js where they sit beside it
// (Debian's and the official tarballs' layout), so nothing is downloaded.
const args = ['rebuild', '--release', `--jobs=${Math.max(1, Math.min(4, (await import('node:os')).availableParallelism()))}`];
const localHeaders = join(dirname(process.execPath), '..', 'include', 'node', 'node_api.h');
if (!process.env.npm_config_nodedir && existsSync(localHeaders)) args.push(`--nodedir=${join(dirname(process.execPath), '..')}`);

const require = createRequire(import.meta.url);
const nodeGyp = join(dirname(require.resolve('node-gyp/package.json')), 'bin', 'node-gyp.js');
const result = spawnSync(process.execPath, [nodeGyp, ...args], { cwd: pkg, stdio: 'inherit' });
if (result.status !== 0) {
  console.error(`@cuda-js/bindings: building the native addon failed (node-gyp ${args.join(' ')})`);
  process.exit(result.status ?? 1);
}
writeFileSync(stamp, wanted);
