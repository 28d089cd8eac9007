#!/usr/bin/env node
// `npm start` and `npm test` on a fresh machine with only Node.js and npm:
// fetch the pinned pnpm through npm, install, build, then run the demo or the tests.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Turbo sends anonymous usage data unless told not to; the children inherit this.
process.env.TURBO_TELEMETRY_DISABLED = '1';
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmSpec = packageManager; // e.g. pnpm@12.4.2
const pnpmVersion = pnpmSpec.split('@')[1];

function run(command, args, options = {}) {
  console.log(`\n> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function havePinnedPnpm() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() === pnpmVersion;
}

const usePath = havePinnedPnpm();
const pnpm = (...args) =>
  usePath ? run('pnpm', args) : run('npm', ['exec', '--yes', `--package=${pnpmSpec}`, '--', 'pnpm', ...args]);

const mode = process.argv[2];
const extra = process.argv.slice(3);
pnpm('install', '--frozen-lockfile', '--config.confirmModulesPurge=false');
if (mode === 'start') {
  pnpm('exec', 'turbo', 'run', 'build', '--filter=cuda-js...', '--output-logs=errors-only');
  run(process.execPath, [join(root, 'packages/cuda-js/dist/cli.js'), 'demo', ...extra]);
} else if (mode === 'test') {
  // house habits first: Biome's lint and format check (biome.jsonc), then clang-format over the native code
  pnpm('exec', 'biome', 'ci', '.');
  run(process.execPath, [join(root, 'tooling/scripts/check-native-format.mjs')]);
  pnpm('exec', 'turbo', 'run', 'build', 'typecheck', '--output-logs=errors-only');
  pnpm('exec', 'typedoc', '--logLevel', 'Warn');
  pnpm('exec', 'vitest', 'run', ...extra);
} else {
  console.error(`usage: setup.mjs start|test`);
  process.exit(2);
}
