#!/usr/bin/env node
// CI, after the build: the packages as users get them.
//  1. packs every public package (pnpm pack, which turns workspace: ranges into versions),
//  2. checks each tarball: LICENSE, README and the files its README links to,
//     every file that package.json names (exports, main, types, bin,
//     sideEffects), the prebuilt addons of every shipped platform (linux-x64 and
//     linux-arm64, each an ELF for its machine), no lifecycle script and no root
//     binding.gyp (npm and pnpm would compile), and nothing else
//     (no source maps, .tsbuildinfo, tests, test fixtures or test support, no
//     module that no entry loads: unreachable-modules.mjs),
//  3. runs publint on each tarball, `npm publish --dry-run` on each tarball
//     and `pnpm publish -r --dry-run` on the workspace (what `changeset publish` runs),
//  4. installs the tarballs into fresh folders outside the workspace, with npm
//     and with pnpm, for each user path (bindings alone; memory-view alone with
//     scijs ndarray and apache-arrow; the full stack), and runs a smoke script
//     in each; the bindings and full-stack paths also prove that a missing addon
//     is AddonNotFoundError, and that `cuda-js info` prints it,
//  5. prints each tarball's size and each install's time.
// Needs the workspace built (`turbo run build`) and the npm registry.
//   node tooling/scripts/pack-smoke.mjs [--cold] [--keep]
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  existsSync,
  copyFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHIPPED_PREBUILDS } from './native-prebuilds.mjs';
import { manifestEntries, relativeImports, unreachableModules } from './unreachable-modules.mjs';

const USAGE = `usage: node tooling/scripts/pack-smoke.mjs [--cold] [--keep]

Packs every public package, checks each tarball (files, exports, prebuilds, publint,
npm publish --dry-run), installs the tarballs into fresh folders with npm and pnpm
for each user path (bindings alone; memory-view alone; the full stack) and runs a
smoke script in each. Needs the workspace built (turbo run build) and the npm registry.

  --cold   each install gets an empty package cache, as on a fresh machine
  --keep   keep the work folder of packs and installs (under the system temp folder)
  --help   print this and exit
`;
const known = new Set(['--cold', '--keep', '--help', '-h']);
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = process.argv.slice(2).filter((a) => !known.has(a));
if (unknown.length > 0) {
  process.stderr.write(`pack-smoke: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(' ')}\n\n${USAGE}`);
  process.exit(2);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = packageManager.split('@')[1];
const keep = process.argv.includes('--keep');
// --cold: each install gets an empty package cache (npm --cache; pnpm --store-dir, --state-dir and XDG_CACHE_HOME
// for its metadata cache), as on a fresh machine.
const cold = process.argv.includes('--cold');
const platformDir = `${process.platform}-${process.arch}`;
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

const failures = [];
const fail = (message) => {
  failures.push(message);
  console.log(`  FAIL ${message}`);
};
const check = (ok, message) => {
  if (!ok) fail(message);
  return ok;
};

function run(command, args, options = {}) {
  const started = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '', seconds };
}

const pnpmOnPath = (() => {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() === pnpmVersion;
})();
const pnpm = (args, options) =>
  pnpmOnPath
    ? run('pnpm', args, options)
    : run('npm', ['exec', '--yes', `--package=pnpm@${pnpmVersion}`, '--', 'pnpm', ...args], options);

const indent = (text) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

// ---------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'cuda-js-pack-'));
if (!relative(root, work).startsWith('..')) throw new Error(`${work} is inside the workspace`);
const tarballDir = join(work, 'tarballs');
mkdirSync(tarballDir);
console.log(`pack-smoke: working in ${work}`);

const packages = readdirSync(join(root, 'packages'))
  .map((dir) => ({
    dir: join(root, 'packages', dir),
    manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')),
  }))
  .filter((p) => !p.manifest.private);
for (const p of packages) {
  if (!existsSync(join(p.dir, 'dist')))
    throw new Error(`${p.manifest.name} has no dist/: build the workspace first (turbo run build)`);
}

// 1. pack -------------------------------------------------------------------
console.log('\n== pack (pnpm pack, every public package)');
const packed = pnpm(['-r', '--filter', './packages/*', 'pack', '--pack-destination', tarballDir, '--json']);
if (packed.status !== 0) {
  console.log(indent(packed.out));
  throw new Error('pnpm pack failed');
}
const tarballs = new Map(); // name -> { file, version, manifest, files, unpacked, packedBytes }
for (const file of readdirSync(tarballDir).filter((f) => f.endsWith('.tgz'))) {
  const path = join(tarballDir, file);
  const listing = run('tar', ['-tvzf', path]).stdout.trim().split('\n');
  const files = new Map();
  for (const line of listing) {
    const m = /^\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+package\/(.+)$/.exec(line);
    if (m) files.set(m[2], Number(m[1]));
  }
  const manifest = JSON.parse(run('tar', ['-xzOf', path, 'package/package.json']).stdout);
  const packedBytes = readFileSync(path).length;
  const unpacked = [...files.values()].reduce((a, b) => a + b, 0);
  tarballs.set(manifest.name, { path, version: manifest.version, manifest, files, unpacked, packedBytes });
}
for (const p of packages) check(tarballs.has(p.manifest.name), `${p.manifest.name}: no tarball was packed`);

// 2. contents -----------------------------------------------------------------
console.log('\n== tarball contents');
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
const FORBIDDEN = [
  [/\.map$/, 'a source map'],
  [/(^|\/)\.?tsbuildinfo$|\.tsbuildinfo$/, 'a .tsbuildinfo'],
  [/\.test\./, 'a test'],
  [/\.test-support\./, 'test support'],
  [/(^|\/)test-fixtures\//, 'a test fixture'],
  [/(^|\/)test-kernels\./, 'test kernels'],
  [/(^|\/)test-environment\./, 'a test environment'],
  [/^src\//, 'TypeScript sources'],
  [/^binding\.gyp$/, 'a root binding.gyp (npm and pnpm would compile on install)'],
  [/(^|\/)build\//, 'a build folder'],
  [/(^|\/)node_modules\//, 'node_modules'],
];
function exportTargets(value, conditions = []) {
  if (typeof value === 'string') return [{ target: value, conditions }];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    exportTargets(v, key.startsWith('.') ? conditions : [...conditions, key]),
  );
}
const strip = (p) => posix.normalize(p.replace(/^\.\//, ''));
// ELF e_machine of each shipped prebuild folder (EM_X86_64, EM_AARCH64), read from a 64-bit little-endian ELF shared object.
const ELF_MACHINE_OF = { 'linux-x64': 62, 'linux-arm64': 183 };
const elfMachine = (bytes) =>
  bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46 && bytes.readUInt16LE(16) === 3
    ? bytes.readUInt16LE(18)
    : undefined;
for (const [name, t] of tarballs) {
  const { manifest, files } = t;
  const has = (p) => files.has(strip(p));
  const before = failures.length;
  check(
    has('LICENSE') && run('tar', ['-xzOf', t.path, 'package/LICENSE']).stdout === license,
    `${name}: LICENSE missing or not the Apache-2.0 text of the repository`,
  );
  check(manifest.license === 'Apache-2.0', `${name}: license field is ${manifest.license}`);
  check(has('README.md'), `${name}: README.md missing`);
  for (const [file] of files)
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(file)) fail(`${name}: ships ${what}: ${file}`);
  if (has('README.md')) {
    const readme = run('tar', ['-xzOf', t.path, 'package/README.md']).stdout;
    for (const m of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1];
      if (/^(https?:|mailto:|#)/.test(link)) continue;
      const target = strip(link.split('#')[0]);
      check(
        has(target) || [...files.keys()].some((f) => f.startsWith(`${target}/`)),
        `${name}: README links to ${link}, which the tarball does not hold`,
      );
    }
  }
  for (const { target, conditions } of exportTargets(manifest.exports ?? {})) {
    check(
      !conditions.some((c) => c.startsWith('@cuda-js/')),
      `${name}: export condition ${conditions.join('.')} (a workspace-only condition)`,
    );
    check(has(target), `${name}: exports names ${target}, which the tarball does not hold`);
  }
  for (const field of ['main', 'types'])
    if (manifest[field]) check(has(manifest[field]), `${name}: ${field} names ${manifest[field]}, not in the tarball`);
  for (const bin of Object.values(typeof manifest.bin === 'string' ? { bin: manifest.bin } : (manifest.bin ?? {})))
    check(has(bin), `${name}: bin ${bin} not in the tarball`);
  // a pattern (./dist/chunks/*.js) must match some file of the tarball, a path be one
  const matches = (pattern) => {
    if (!pattern.includes('*')) return has(pattern);
    const re = new RegExp(
      `^${strip(pattern)
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')}$`,
    );
    return [...files.keys()].some((f) => re.test(f));
  };
  if (Array.isArray(manifest.sideEffects))
    for (const s of manifest.sideEffects) check(matches(s), `${name}: sideEffects names ${s}, not in the tarball`);
  // Every relative import of a shipped module is shipped too: the tarballs hold the bundled entries, not
  // tsc's per-module files, so an entry that was not bundled (a `tsc -b` after the bundle) is caught here.
  // And every shipped module is loaded by some entry: no per-module file beside a bundle, no type-only module's `export {}`.
  const modules = new Map(
    [...files.keys()]
      .filter((f) => /\.[cm]?js$/.test(f))
      .map((file) => [file, run('tar', ['-xzOf', t.path, `package/${file}`]).stdout]),
  );
  for (const [file, text] of modules) {
    for (const specifier of relativeImports(text)) {
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      check(
        files.has(target),
        `${name}: ${file} imports ${specifier}, which the tarball does not hold (an entry left unbundled? build the package again)`,
      );
    }
  }
  for (const file of unreachableModules(modules, manifestEntries(manifest)))
    fail(`${name}: ships ${file}, which no entry (exports, main, bin) loads`);
  for (const script of ['preinstall', 'install', 'postinstall'])
    check(!manifest.scripts?.[script], `${name}: has a ${script} script`);
  check(manifest.gypfile !== true, `${name}: gypfile: true (npm would compile on install)`);
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {}))
      check(!String(range).startsWith('workspace:'), `${name}: ${field}.${dep} is ${range}`);
  }
  if (name === '@cuda-js/bindings' || name === '@cuda-js/memory-view') {
    // Every shipped platform's prebuild, each an ELF shared object for its machine.
    for (const folder of SHIPPED_PREBUILDS) {
      const prebuilds = [...files.keys()].filter((f) => f.startsWith(`prebuilds/${folder}/`) && f.endsWith('.node'));
      const how =
        folder === platformDir
          ? ''
          : ` (the workspace build cross-compiles it where the ${folder} GNU toolchain is installed: see tooling/scripts/native-prebuilds.mjs)`;
      if (
        !check(
          prebuilds.length === 1,
          `${name}: expected one prebuilt addon in prebuilds/${folder}/, found ${prebuilds.length}${how}`,
        )
      )
        continue;
      const machine = elfMachine(
        spawnSync('tar', ['-xzOf', t.path, `package/${prebuilds[0]}`], { maxBuffer: 64 * 1024 * 1024 }).stdout,
      );
      check(
        machine === ELF_MACHINE_OF[folder],
        `${name}: ${prebuilds[0]} is not a shared object for ${folder} (ELF e_machine ${machine}, expected ${ELF_MACHINE_OF[folder]})`,
      );
    }
    check(has('native/binding.gyp'), `${name}: native/binding.gyp (the source-build fallback) missing`);
  }
  if (name === '@cuda-js/bindings')
    check(manifest.sideEffects !== false, `${name}: sideEffects: false, yet it loads its addon at import`);
  if (name === '@cuda-js/memory-view')
    check(has('docs/protocols.md'), `${name}: docs/protocols.md (the protocol spec) missing`);
  console.log(
    `  ${failures.length === before ? 'ok  ' : 'FAIL'} ${name}@${t.version}: ${files.size} files, ${kib(t.packedBytes)} packed, ${kib(t.unpacked)} unpacked`,
  );
}

// 3. publint, npm publish --dry-run, pnpm publish -r --dry-run -------------------
console.log('\n== publint (strict) and npm publish --dry-run, each tarball');
const publint = join(root, 'node_modules', '.bin', 'publint');
for (const [name, t] of tarballs) {
  const lint = run(publint, ['run', t.path, '--strict'], { cwd: work });
  if (!check(lint.status === 0, `${name}: publint failed`)) console.log(indent(lint.out));
  const dry = run('npm', ['publish', '--dry-run', t.path], { cwd: work });
  const ok =
    dry.status === 0 &&
    dry.out.includes(`+ ${name}@${t.version}`) &&
    !/npm (error|ERR!)/.test(dry.out) &&
    (!name.startsWith('@') || dry.out.includes('public access')) &&
    [...t.files.keys()].every((f) => f === 'package.json' || dry.out.includes(f));
  if (!check(ok, `${name}: npm publish --dry-run did not list the tarball as expected`)) console.log(indent(dry.out));
  else
    console.log(
      `  ok   ${name}: publint clean; npm publish --dry-run: + ${name}@${t.version}${name.startsWith('@') ? ', public access' : ''}`,
    );
}
console.log('\n== pnpm publish -r --dry-run (what `changeset publish` runs)');
const pnpmDry = pnpm(['publish', '-r', '--dry-run', '--no-git-checks']);
const dryOk = pnpmDry.status === 0 && [...tarballs].every(([name, t]) => pnpmDry.out.includes(`${name}@${t.version}`));
if (!check(dryOk, 'pnpm publish -r --dry-run failed')) console.log(indent(pnpmDry.out));
else console.log(`  ok   ${tarballs.size} packages (${pnpmDry.seconds.toFixed(1)} s)`);

// 4. installs and smoke scripts -----------------------------------------------
const internalClosure = (names) => {
  const seen = new Set();
  const visit = (name) => {
    for (const dep of Object.keys(tarballs.get(name)?.manifest.dependencies ?? {})) {
      if (tarballs.has(dep) && !seen.has(dep)) {
        seen.add(dep);
        visit(dep);
      }
    }
  };
  names.forEach(visit);
  for (const n of names) seen.delete(n);
  return [...seen];
};

const SMOKE = {
  bindings: `
import { driver, AddonLoadError, CudaError, LibraryNotFoundError } from '@cuda-js/bindings';
import { OwnedHandle, PACKED_LAUNCH_HEADER } from '@cuda-js/bindings/runtime';
if (typeof OwnedHandle !== 'function' || PACKED_LAUNCH_HEADER.bytes !== 48) throw new Error('@cuda-js/bindings/runtime: not the runtime of the layers above');
console.log('@cuda-js/bindings/runtime: OwnedHandle, a packed launch header of', PACKED_LAUNCH_HEADER.bytes, 'bytes');
try {
  const v = driver.cuDriverGetVersion();
  console.log('cuDriverGetVersion() =', v, '(CUDA ' + Math.floor(v / 1000) + '.' + (v % 1000) / 10 + ')');
} catch (error) {
  if (error instanceof AddonLoadError || !(error instanceof LibraryNotFoundError || error instanceof CudaError)) throw error;
  console.log('cuDriverGetVersion() threw', error.name + ':', error.message.split('\\n')[0], '(no driver library here)');
}
`,
  bindingsWithoutAddon: `
import { driver, AddonNotFoundError } from '@cuda-js/bindings';
console.log('import ok without the addon; CUresult[100] =', driver.CUresult[100]);
try {
  driver.cuInit(0);
  throw new Error('cuInit worked without the addon');
} catch (error) {
  if (!(error instanceof AddonNotFoundError)) throw error;
  if (!error.searched.some((p) => p.includes('prebuilds')) || !error.message.includes('node-gyp rebuild')) throw new Error('the message does not say where it looked and how to build: ' + error.message);
  console.log(error.name + ':', error.message);
}
`,
  memoryView: `
import ndarray from 'ndarray';
import { makeVector } from 'apache-arrow';
import { AdapterNotImportedError, StridedMemoryView } from '@cuda-js/memory-view';
import { fromManagedTensor, nativeHelperStatus, toManagedTensor } from '@cuda-js/memory-view/native';
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const nd = ndarray(new Float64Array([1, 2, 3, 4, 5, 6]), [2, 3]);
try {
  StridedMemoryView.fromAny(nd);
  throw new Error('an ndarray was viewed before its adapter was imported');
} catch (error) {
  if (!(error instanceof AdapterNotImportedError) || error.subpath !== '@cuda-js/memory-view/adapters/ndarray') throw error;
  console.log('before import  ->', error.name + ':', 'import', error.subpath);
}
// The host adapters are subpath exports: importing one registers it with the main entry.
await import('@cuda-js/memory-view/adapters/ndarray');
await import('@cuda-js/memory-view/adapters/arrow');
const a = StridedMemoryView.fromAny(nd);
if (!same(a.shape, [2, 3]) || a.dtype.name !== 'float64') throw new Error('ndarray view: ' + a.shape + ' ' + a.dtype.name);
console.log('scijs ndarray  ->', a.dtype.name, JSON.stringify(a.shape), 'strides', JSON.stringify(a.strides));
const vector = makeVector(new Float32Array([1, 2, 3, 4]));
const b = StridedMemoryView.fromAny(vector);
if (!same(b.shape, [4]) || b.dtype.name !== 'float32') throw new Error('arrow view: ' + b.shape + ' ' + b.dtype.name);
console.log('apache-arrow   ->', b.dtype.name, JSON.stringify(b.shape));
const status = nativeHelperStatus();
if (!status.available) throw new Error('the prebuilt DLPack helper did not load: ' + status.reason);
const back = fromManagedTensor(toManagedTensor(a));
if (!same(back.shape, [2, 3])) throw new Error('native round trip: ' + back.shape);
console.log('native helper  -> loaded from', status.path.split('node_modules/').pop() + ', DLPack round trip', JSON.stringify(back.shape));
`,
  fullStack: `
import * as cuda from 'cuda-js';
console.log('import cuda-js:', Object.keys(cuda).length, 'exports');
// The host adapters under the name that an install of cuda-js alone resolves (a scijs ndarray's fields, no ndarray package).
const scijs = { data: new Float32Array(6), shape: [2, 3], stride: [3, 1], offset: 0, dtype: 'float32' };
try {
  cuda.StridedMemoryView.fromAny(scijs);
  throw new Error('a scijs ndarray was viewed before its adapter was imported');
} catch (error) {
  if (!(error instanceof cuda.AdapterNotImportedError) || !error.message.includes("'cuda-js/adapters/ndarray'")) throw error;
}
await import('cuda-js/adapters/ndarray');
await import('cuda-js/adapters');
if (cuda.StridedMemoryView.fromAny(scijs).shape.join() !== '2,3') throw new Error('cuda-js/adapters/ndarray did not register the adapter');
console.log('cuda-js/adapters/ndarray -> registered');
`,
};

const PATHS = [
  { id: 'bindings', title: 'bindings alone', deps: { '@cuda-js/bindings': null }, smoke: 'bindings' },
  {
    id: 'memory-view',
    title: 'memory-view alone, with ndarray and apache-arrow',
    deps: { '@cuda-js/memory-view': null, ndarray: '^1.0.19', 'apache-arrow': '^21.0.0' },
    smoke: 'memoryView',
  },
  { id: 'full-stack', title: 'the full stack (cuda-js)', deps: { 'cuda-js': null }, smoke: 'fullStack', cli: true },
];
const installs = [];

function setUp(dir, path, manager) {
  mkdirSync(dir, { recursive: true });
  const dependencies = Object.fromEntries(
    Object.entries(path.deps).map(([n, spec]) => [n, spec ?? `file:${tarballs.get(n).path}`]),
  );
  // Our packages are not on the registry yet: their dependencies on each other come from the tarballs.
  const pinned = Object.fromEntries(
    internalClosure(Object.keys(path.deps).filter((n) => tarballs.has(n))).map((n) => [
      n,
      `file:${tarballs.get(n).path}`,
    ]),
  );
  const manifest = { name: `smoke-${path.id}`, version: '1.0.0', private: true, type: 'module', dependencies };
  if (manager === 'npm') manifest.overrides = pinned;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  if (manager === 'pnpm') {
    const yaml = Object.keys(pinned).length
      ? `overrides:\n${Object.entries(pinned)
          .map(([n, s]) => `  '${n}': '${s}'\n`)
          .join('')}`
      : '';
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), yaml || '{}\n');
  }
}

function coldCache(dir, manager) {
  if (!cold) return [];
  const cache = join(dirname(dir), `${relative(work, dir)}-cache`);
  return manager === 'npm'
    ? [`--cache=${cache}`]
    : [`--store-dir=${join(cache, 'store')}`, `--state-dir=${join(cache, 'state')}`];
}

function smoke(dir, name, label) {
  writeFileSync(join(dir, `${name}.mjs`), SMOKE[name]);
  const r = run(process.execPath, [`${name}.mjs`], { cwd: dir });
  if (check(r.status === 0, `${label}: smoke script ${name} failed`)) console.log(indent(r.out));
  else console.log(indent(r.out));
  return r;
}

function withoutAddon(dir, fn) {
  const prebuilds = join(dir, 'node_modules', '@cuda-js', 'bindings', 'prebuilds');
  renameSync(prebuilds, `${prebuilds}.hidden`);
  try {
    return fn();
  } finally {
    renameSync(`${prebuilds}.hidden`, prebuilds);
  }
}

for (const path of PATHS) {
  for (const manager of ['npm', 'pnpm']) {
    const label = `${path.id} (${manager})`;
    console.log(`\n== install ${path.title} with ${manager}`);
    const dir = join(work, `${path.id}-${manager}`);
    setUp(dir, path, manager);
    const r =
      manager === 'npm'
        ? run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...coldCache(dir, 'npm')], { cwd: dir })
        : pnpm(['install', '--reporter=append-only', ...coldCache(dir, 'pnpm')], {
            cwd: dir,
            env: cold ? { ...env, XDG_CACHE_HOME: join(dirname(dir), `${relative(work, dir)}-cache`, 'xdg') } : env,
          });
    installs.push({ path: path.title, manager, seconds: r.seconds, ok: r.status === 0 });
    if (!check(r.status === 0, `${label}: install failed`)) {
      console.log(indent(r.out));
      continue;
    }
    check(
      !/IGNORED_BUILDS|Ignored build scripts|approve-builds/.test(r.out),
      `${label}: the package manager held back a build`,
    );
    console.log(`  installed in ${r.seconds.toFixed(1)} s`);
    for (const native of ['bindings', 'memory-view']) {
      const pkg = join(dir, 'node_modules', '@cuda-js', native);
      if (existsSync(pkg))
        check(!existsSync(join(pkg, 'native', 'build')), `${label}: @cuda-js/${native} was compiled on install`);
    }
    if (path.smoke) smoke(dir, path.smoke, label);
    if (path.id === 'bindings' && manager === 'npm') {
      console.log('  without the prebuilt addon:');
      withoutAddon(dir, () => smoke(dir, 'bindingsWithoutAddon', label));
    }
    if (path.cli) {
      const version = run('npx', ['cuda-js', '--version'], { cwd: dir });
      check(
        version.status === 0 && version.stdout.trim() === tarballs.get('cuda-js').version,
        `${label}: npx cuda-js --version printed ${version.out.trim()}`,
      );
      console.log(`  npx cuda-js --version: ${version.out.trim()}`);
      const info = run('npx', ['cuda-js', 'info'], { cwd: dir });
      check(
        info.status === 0 && info.out.includes('cuda-js: CUDA libraries on this machine'),
        `${label}: npx cuda-js info failed`,
      );
      console.log(`  npx cuda-js info:\n${indent(info.out.split('\n').slice(0, 6).join('\n'))}\n    ...`);
      if (manager === 'npm') {
        const missing = withoutAddon(dir, () => run('npx', ['cuda-js', 'info'], { cwd: dir }));
        const shown = missing.out.split('\n').find((l) => l.includes('AddonNotFoundError'));
        check(
          missing.status === 0 &&
            shown !== undefined &&
            missing.out.includes('cuda-js: CUDA libraries on this machine'),
          `${label}: npx cuda-js info without the addon did not print AddonNotFoundError`,
        );
        console.log(
          `  npx cuda-js info without the prebuilt addon (exit ${missing.status}):\n${indent(shown ?? missing.out)}`,
        );
      }
    }
  }
}
// --ignore-scripts, as the issue tried it
{
  const path = PATHS[0];
  const dir = join(work, 'bindings-npm-ignore-scripts');
  console.log('\n== install bindings alone with npm --ignore-scripts');
  setUp(dir, path, 'npm');
  const r = run(
    'npm',
    ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...coldCache(dir, 'npm')],
    { cwd: dir },
  );
  installs.push({ path: `${path.title}, --ignore-scripts`, manager: 'npm', seconds: r.seconds, ok: r.status === 0 });
  if (check(r.status === 0, 'bindings (npm --ignore-scripts): install failed'))
    smoke(dir, 'bindings', 'bindings (npm --ignore-scripts)');
  else console.log(indent(r.out));
}

// A TypeScript user (issue 19): a fresh project with the settings `tsc --init` writes
// plus strict (tooling/test-support/tsconfig.user.json), the tarballs and TypeScript from the
// registry, type-checks the fixture kernels (README axpy, 2-D stencil, shared-memory
// reduction, constants, declareDevice: no casts), then emits them and runs them in the simulator.
{
  const dir = join(work, 'typescript-user-npm');
  console.log('\n== a TypeScript project (tsc --init settings, strict) with the tarballs, npm');
  const typescriptVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies.typescript;
  const path = {
    id: 'typescript-user',
    deps: {
      'cuda-js': null,
      '@cuda-js/jit': null,
      '@cuda-js/core': null,
      '@cuda-js/memory-view': null,
      typescript: typescriptVersion,
      '@types/node': '^20.19.0',
    },
  };
  setUp(dir, path, 'npm');
  const fixture = join(root, 'packages', 'jit', 'type-tests');
  copyFileSync(join(fixture, 'kernels.ts'), join(dir, 'kernels.ts'));
  copyFileSync(join(root, 'tooling', 'test-support', 'tsconfig.user.json'), join(dir, 'tsconfig.user.json'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: './tsconfig.user.json', include: ['*.ts'] }));
  writeFileSync(
    join(dir, 'tsconfig.emit.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false, outDir: 'out' } }),
  );
  writeFileSync(
    join(dir, 'run.mjs'),
    `import { runAll } from './out/kernels.js';
const r = runAll();
const want = { axpy: [12, 24, 36, 48], blockSum: 256, scaleAndShift: [3.5, 12.5, 27.5, 48.5], histogram: [1, 2, 0, 1, 15] };
for (const [k, v] of Object.entries(want)) if (JSON.stringify(r[k]) !== JSON.stringify(v)) throw new Error(\`\${k}: got \${JSON.stringify(r[k])}, want \${JSON.stringify(v)}\`);
console.log('kernels ran in the simulator, results checked:', Object.keys(r).join(', '));
`,
  );
  const r = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...coldCache(dir, 'npm')], {
    cwd: dir,
  });
  installs.push({
    path: 'a TypeScript project (cuda-js + typescript)',
    manager: 'npm',
    seconds: r.seconds,
    ok: r.status === 0,
  });
  if (check(r.status === 0, 'typescript user (npm): install failed')) {
    const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    const typecheck = run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir });
    if (check(typecheck.status === 0, `typescript user: tsc ${typescriptVersion} refused the fixture kernels`))
      console.log(`  tsc ${typescriptVersion} (strict, tsc --init settings): no errors`);
    else console.log(indent(typecheck.out));
    const emit = run(process.execPath, [tsc, '-p', 'tsconfig.emit.json'], { cwd: dir });
    if (check(emit.status === 0, 'typescript user: tsc could not emit the fixture')) {
      const ran = run(process.execPath, ['run.mjs'], { cwd: dir });
      check(ran.status === 0, 'typescript user: the compiled kernels failed in the simulator');
      console.log(indent(ran.out));
    } else console.log(indent(emit.out));
  } else console.log(indent(r.out));
}

// 5. summary ------------------------------------------------------------------
console.log('\n== tarballs');
console.log('  package                  packed       unpacked     files');
for (const [name, t] of [...tarballs].sort())
  console.log(
    `  ${`${name}@${t.version}`.padEnd(24)} ${kib(t.packedBytes).padStart(11)}  ${kib(t.unpacked).padStart(11)}  ${String(t.files.size).padStart(5)}`,
  );
const total = [...tarballs.values()].reduce((a, t) => a + t.packedBytes, 0);
console.log(`  ${'all'.padEnd(24)} ${kib(total).padStart(11)}`);
console.log(
  `\n== installs from the tarballs (${cold ? 'each with an empty package cache: registry downloads included' : 'package caches as they were'})`,
);
for (const i of installs)
  console.log(`  ${i.manager.padEnd(5)} ${i.path.padEnd(52)} ${i.ok ? `${i.seconds.toFixed(1)} s` : 'FAILED'}`);

if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`\nkept ${work}`);
if (failures.length) {
  console.log(`\npack-smoke: ${failures.length} problem(s):\n${failures.map((f) => `  - ${f}`).join('\n')}`);
  process.exit(1);
}
console.log('\npack-smoke: every package packs, lints, dry-run publishes, installs with npm and pnpm, and runs');
