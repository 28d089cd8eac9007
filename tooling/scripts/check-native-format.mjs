#!/usr/bin/env node
// clang-format over the hand-written native code: packages/*/native/**/*.{cc,cpp,h}, less
// generated/ and build output. `--write` formats in place; otherwise it checks and fails
// on any difference. The binary is the one the npm `clang-format` package ships (clang-format 15),
// so that every machine formats alike; where it ships none for this platform, CLANG_FORMAT may
// name one, else the check is skipped with the reason printed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const write = process.argv.includes('--write');

function shippedBinary() {
  let pkg;
  try {
    pkg = dirname(createRequire(join(root, 'package.json')).resolve('clang-format/package.json'));
  } catch {
    return undefined;
  }
  const dir = process.platform === 'win32' ? 'win32' : `${process.platform}_${process.arch}`;
  const binary = join(pkg, 'bin', dir, process.platform === 'win32' ? 'clang-format.exe' : 'clang-format');
  return existsSync(binary) ? binary : undefined;
}

function sources(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'build' && entry.name !== 'node_modules') sources(path, out);
    } else if (/\.(cc|cpp|h)$/.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

const binary = process.env.CLANG_FORMAT || shippedBinary();
if (binary === undefined) {
  console.log(
    `clang-format check skipped: the npm clang-format package ships no binary for ${process.platform}-${process.arch} (set CLANG_FORMAT to a clang-format 15)`,
  );
  process.exit(0);
}
const files = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name, 'native'))
  .filter((dir) => existsSync(dir))
  .flatMap((dir) => sources(dir))
  .sort();
const args = write ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const result = spawnSync(binary, [`--style=file:${join(root, '.clang-format')}`, ...args], {
  cwd: root,
  stdio: 'inherit',
});
if (result.error) {
  console.log(`clang-format check skipped: ${binary} did not run (${result.error.message})`);
  process.exit(0);
}
if (result.status !== 0) {
  console.error(`clang-format: ${write ? 'failed' : 'the native code is not formatted; run `npm run format`'}`);
  process.exit(result.status ?? 1);
}
console.log(
  `clang-format: ${files.length} native files ${write ? 'formatted' : 'checked'} under ${[...new Set(files.map((f) => relative(root, f).split('/').slice(0, 3).join('/')))].join(', ')}`,
);
