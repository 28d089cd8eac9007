#!/usr/bin/env node
// CI, after the build: apps that ship. The app in app/ (TypeScript kernels,
// unnamed, as users write them) is bundled with the build plugin by esbuild,
// vite, rollup and webpack, each twice: with cuda-js inside the bundle, and
// with cuda-js an import of it. Each bundle is then shipped as a user ships
// it, into a folder outside the workspace: the bundle and the node_modules
// that `npm install --omit=dev` gives for what the bundle imports (only
// @cuda-js/bindings, for the plugin keeps it external, or the whole of
// cuda-js), installed from the packed tarballs. Each shipped app is run
// there: its native addon must load and reach cuInit (which reports
// CUDA_ERROR_NO_DEVICE where the driver library has no device, or succeeds on
// a GPU), and its kernels must give the answer of plain JavaScript, in the
// simulator here and on the GPU where there is one.
//
//   node tooling/bundled-apps/bundled-apps.mjs               build, ship and run here (the simulator)
//   node tooling/bundled-apps/bundled-apps.mjs --keep DIR    also leave the shipped apps in DIR/apps.tar.xz
//   node tooling/bundled-apps/bundled-apps.mjs --run DIR     unpack DIR/apps.tar.xz and run each app on the GPU (a GPU host)
// Needs the workspace built (turbo run build) and, to build, the npm registry.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values: args } = parseArgs({
  options: { keep: { type: 'string' }, run: { type: 'string' }, help: { type: 'boolean' } },
});
if (args.help) {
  console.log(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(1, 19)
      .join('\n')
      .replace(/^\/\/ ?/gm, ''),
  );
  process.exit(0);
}
const env = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};
delete env.CUDA_JS_SIMULATOR;

function run(command, argv, options = {}) {
  const r = spawnSync(command, argv, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

/** What plain JavaScript computes for app/main.ts. */
function expected() {
  const n = 256;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 11) - 5);
  const y = Float32Array.from({ length: n }, (_, i) => i / 8);
  for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(2 * x[i]) + y[i]);
  const blockSum = Array.from({ length: n / 64 }, (_, b) => x.subarray(b * 64, b * 64 + 64).reduce((s, v) => s + v, 0));
  return { saxpy: [...y], blockSum };
}

/** Runs each shipped app in `apps` (a folder of app folders), simulated or on the GPU; gives the failures. */
function runApps(apps, { gpu }) {
  const failures = [];
  const want = expected();
  for (const name of readdirSync(apps).sort()) {
    const dir = join(apps, name);
    const main = ['main.mjs', 'main.cjs'].find((f) => existsSync(join(dir, f)));
    if (main === undefined) continue;
    // bundled without the plugin and shipped alone, the addon is lost: the app must say so, not that there is no GPU
    const lost = name.endsWith('-alone');
    const r = run(process.execPath, [main], { cwd: dir, env: gpu ? env : { ...env, CUDA_JS_SIMULATOR: '1' } });
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
    const report = line === undefined ? undefined : JSON.parse(line);
    const problems = [];
    if (r.status !== 0 || report === undefined)
      problems.push(`exit ${r.status}: ${r.out.trim().split('\n').slice(-3).join(' | ')}`);
    else {
      // the addon loaded and reached the driver: cuInit answered (no device here, a device on a GPU host)
      const lostSaid = /^AddonNotFoundError: .*was bundled into .*away from its native addon/;
      const reached = lost
        ? lostSaid.test(report.cuInit)
        : gpu
          ? report.cuInit === 'CUDA_SUCCESS'
          : ['CUDA_SUCCESS', 'CUDA_ERROR_NO_DEVICE', 'CUDA_ERROR_NOT_INITIALIZED'].includes(report.cuInit) ||
            /^LibraryNotFoundError/.test(report.cuInit);
      if (!reached) problems.push(`cuInit: ${report.cuInit}`);
      if (lost && gpu) {
        if (!lostSaid.test(report.error ?? '')) problems.push(`the launch said ${report.error}`);
      } else if (report.error) problems.push(report.error);
      for (const [kernel, values] of Object.entries(lost && gpu ? {} : want)) {
        const got = report.results?.[kernel];
        if (
          !got ||
          got.length !== values.length ||
          got.some((v, i) => Math.abs(v - values[i]) > 1e-3 * Math.max(1, Math.abs(values[i])))
        )
          problems.push(`${kernel}: wrong result ${JSON.stringify(got?.slice(0, 8))}`);
      }
    }
    const where = gpu ? 'GPU' : 'simulator';
    if (problems.length === 0) console.log(`  ok   ${name} (${where}; cuInit: ${report.cuInit})`);
    else {
      console.log(`  FAIL ${name} (${where}): ${problems.join('; ')}`);
      failures.push(name);
    }
  }
  return failures;
}

if (args.run) {
  // unpacked outside the checkout: node_modules of the workspace above the apps would serve the app shipped alone
  const work = mkdtempSync(join(tmpdir(), 'cuda-js-shipped-'));
  const r = run('tar', ['-xJf', join(resolve(args.run), 'apps.tar.xz'), '-C', work]);
  if (r.status !== 0) throw new Error(r.out);
  // the node_modules of each kind of app are shipped once and copied into each app's folder here
  for (const name of readdirSync(join(work, 'apps'))) {
    const kind = name.endsWith('-alone') ? undefined : name.endsWith('-external') ? 'full' : 'bindings';
    if (kind === undefined) continue;
    cpSync(join(work, 'modules', kind, 'node_modules'), join(work, 'apps', name, 'node_modules'), { recursive: true });
  }
  const failures = runApps(join(work, 'apps'), { gpu: true });
  rmSync(work, { recursive: true, force: true });
  console.log(
    failures.length === 0
      ? '\nbundled apps: every app ran on the GPU'
      : `\nbundled apps: ${failures.length} failed: ${failures.join(', ')}`,
  );
  process.exit(failures.length === 0 ? 0 : 1);
}

// ---------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'cuda-js-bundled-'));
if (!relative(root, work).startsWith('..')) throw new Error(`${work} is inside the workspace`);
console.log(`bundled-apps: working in ${work}`);

// 1. the tarballs, as users get the packages
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tarballDir = join(work, 'tarballs');
mkdirSync(tarballDir);
const packed = run('npm', [
  'exec',
  '--yes',
  `--package=${packageManager}`,
  '--',
  'pnpm',
  '-r',
  '--filter',
  './packages/*',
  'pack',
  '--pack-destination',
  tarballDir,
]);
if (packed.status !== 0) throw new Error(`pnpm pack failed:\n${packed.out}`);
const tarballs = new Map();
for (const file of readdirSync(tarballDir).filter((f) => f.endsWith('.tgz'))) {
  const manifest = JSON.parse(run('tar', ['-xzOf', join(tarballDir, file), 'package/package.json']).stdout);
  tarballs.set(manifest.name, join(tarballDir, file));
}

/** A folder with `package.json` depending on `names`, installed with npm from the tarballs (our packages' dependencies on each other too). */
function install(dir, names) {
  mkdirSync(dir, { recursive: true });
  const pinned = Object.fromEntries(
    [...tarballs].filter(([n]) => n.startsWith('@cuda-js/') || n === 'cuda-js').map(([n, p]) => [n, `file:${p}`]),
  );
  const dependencies = Object.fromEntries(names.map((n) => [n, pinned[n]]));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      { name: 'shipped-app', version: '1.0.0', private: true, type: 'module', dependencies, overrides: pinned },
      null,
      2,
    ),
  );
  const r = run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  if (r.status !== 0) throw new Error(`npm install ${names.join(' ')} failed:\n${r.out}`);
}

// 2. the app's project, where it is built: the app's files and cuda-js installed from its tarball
const project = join(work, 'project');
install(project, ['cuda-js']);
cpSync(join(here, 'app'), join(project, 'src'), { recursive: true });
const entry = join(project, 'src', 'main.ts');
// what each kind of app ships beside its bundle
const modules = join(work, 'modules');
install(join(modules, 'bindings'), ['@cuda-js/bindings']);
cpSync(join(project, 'node_modules'), join(modules, 'full', 'node_modules'), { recursive: true });

// 3. the bundles: the bundlers and the plugin of the workspace, the app's imports from the project's node_modules
const { default: cudaJs } = await import('@cuda-js/unplugin');
const esbuild = await import('esbuild');
const { build: viteBuild } = await import('vite');
const { rollup } = await import('rollup');
const { nodeResolve } = await import('@rollup/plugin-node-resolve');
const { default: webpack } = await import('webpack');

const STACK = /^(?:cuda-js|@cuda-js\/[^/]+)(?:\/.*)?$/;

/** TypeScript for rollup, which reads none: esbuild's transform. */
const typescriptForRollup = {
  name: 'typescript',
  async transform(code, id) {
    if (!id.endsWith('.ts')) return null;
    const r = await esbuild.transform(code, { loader: 'ts', format: 'esm', sourcefile: id, sourcemap: true });
    return { code: r.code, map: r.map };
  },
};

/** esbuild's build of the app: an ES module, or CommonJS (esbuild's default format); with the plugin, or without it. */
async function esbuildApp(outDir, inside, { format = 'esm', plugin = true } = {}) {
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    outfile: join(outDir, format === 'esm' ? 'main.mjs' : 'main.cjs'),
    logLevel: 'error',
    ...(inside ? {} : { external: ['cuda-js', '@cuda-js/*'] }),
    plugins: plugin ? [cudaJs.esbuild()] : [],
  });
}

const BUILDS = {
  esbuild: (outDir, inside) => esbuildApp(outDir, inside),
  'esbuild-cjs': (outDir, inside) => esbuildApp(outDir, inside, { format: 'cjs' }),
  async vite(outDir, inside) {
    await viteBuild({
      root: project,
      configFile: false,
      logLevel: 'error',
      plugins: [cudaJs.vite()],
      ssr: inside ? { noExternal: true } : {},
      build: {
        ssr: entry,
        outDir,
        emptyOutDir: true,
        rolldownOptions: { output: { entryFileNames: 'main.mjs', format: 'esm' } },
      },
    });
  },
  async rollup(outDir, inside) {
    const bundle = await rollup({
      input: entry,
      logLevel: 'silent',
      external: inside ? (id) => id.startsWith('node:') : (id) => id.startsWith('node:') || STACK.test(id),
      plugins: [
        cudaJs.rollup(),
        typescriptForRollup,
        nodeResolve({ extensions: ['.ts', '.mjs', '.js'], exportConditions: ['node'], preferBuiltins: true }),
      ],
    });
    await bundle.write({ file: join(outDir, 'main.mjs'), format: 'esm', inlineDynamicImports: true });
    await bundle.close();
  },
  async webpack(outDir, inside) {
    const config = {
      mode: 'none',
      target: 'node',
      context: project,
      entry: './src/main.ts',
      output: { path: outDir, filename: 'main.mjs', module: true, library: { type: 'module' }, chunkFormat: 'module' },
      experiments: { outputModule: true },
      externalsType: 'module',
      externals: inside ? [] : [STACK],
      resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
      module: {
        rules: [
          {
            test: /\.ts$/,
            loader: join(root, 'packages', 'unplugin', 'fixtures', 'typescript-loader.cjs'),
            type: 'javascript/auto',
          },
        ],
      },
      optimization: { minimize: false },
      plugins: [cudaJs.webpack()],
    };
    await new Promise((done, failed) =>
      webpack(config, (error, stats) =>
        error ? failed(error) : stats?.hasErrors() ? failed(new Error(stats.toString())) : done(),
      ),
    );
  },
};

const apps = join(work, 'apps');
/** Ships a build: the bundle (and anything the build emitted beside it), none of the project around it, and the node_modules of `kind`. */
function ship(name, outDir, kind) {
  cpSync(outDir, join(apps, name), { recursive: true });
  if (kind !== undefined)
    cpSync(join(modules, kind, 'node_modules'), join(apps, name, 'node_modules'), { recursive: true });
}
for (const [bundler, build] of Object.entries(BUILDS)) {
  for (const inside of [true, false]) {
    const name = `${bundler}-${inside ? 'inside' : 'external'}`;
    const outDir = join(work, 'out', name);
    await build(outDir, inside);
    ship(name, outDir, inside ? 'bindings' : 'full');
  }
}
// Without the plugin, everything inlined (the bindings too): with node_modules/@cuda-js/bindings shipped, the
// bundled loader finds the installed addon; shipped alone, the app is told the addon was bundled away.
await esbuildApp(join(work, 'out', 'esbuild-noplugin'), true, { plugin: false });
ship('esbuild-noplugin-inside', join(work, 'out', 'esbuild-noplugin'), 'bindings');
ship('esbuild-noplugin-alone', join(work, 'out', 'esbuild-noplugin'), undefined);
console.log(`\n== ${readdirSync(apps).length} apps shipped; each run in the simulator here, its addon loaded`);
const failures = runApps(apps, { gpu: false });

if (args.keep) {
  // for a GPU host: the apps without their node_modules, which are shipped once per kind
  const keep = resolve(args.keep);
  mkdirSync(keep, { recursive: true });
  for (const name of readdirSync(apps)) rmSync(join(apps, name, 'node_modules'), { recursive: true, force: true });
  const r = run('tar', ['-cJf', join(keep, 'apps.tar.xz'), '-C', work, 'apps', 'modules']);
  if (r.status !== 0) throw new Error(r.out);
  console.log(`kept the shipped apps in ${join(keep, 'apps.tar.xz')}`);
}
rmSync(work, { recursive: true, force: true });
console.log(
  failures.length === 0
    ? '\nbundled apps: every app loaded its addon and ran'
    : `\nbundled apps: ${failures.length} failed: ${failures.join(', ')}`,
);
process.exit(failures.length === 0 ? 0 : 1);
