// The bundler matrix: the fixture app (fixtures/app, kernels of the JIT's
// suite) built by esbuild, rolldown, vite, rollup, rspack and webpack with the plugin, each
// with and without minification and source maps, then run in one node
// process in the simulator: results checked against plain JavaScript, and
// the deliberate error of fixtures/app/broken.ts located at its .ts line and
// column. Without the plugin: full bundles (the JIT inlined into the app's
// file) of esbuild, vite and rollup run, and a minified bundle gets the
// RewrittenKernelError. Needs the packages built (dist/), as CI does first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import terserPlugin from '@rollup/plugin-terser';
import * as esbuild from 'esbuild';
import { rolldown } from 'rolldown';
import { type Plugin as RollupPlugin, rollup } from 'rollup';
import { build as viteBuild } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import { webpackBuild } from './webpack-build.test-support.js';

// its types are CommonJS's (a module whose default export is the function), its code an ES module
const terser = terserPlugin as unknown as () => RollupPlugin;

const here = dirname(fileURLToPath(import.meta.url));
const app = resolve(here, '../fixtures/app');
const out = resolve(here, '../fixtures/.out');
const entry = join(app, 'main.ts');
const brokenFile = join(app, 'broken.ts');

/** The line and column (1-based) of `offset` in broken.ts: where the deliberate error must be reported. */
function brokenAt(): { line: number; column: number } {
  const lines = readFileSync(brokenFile, 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes('+ offset'));
  return { line: line + 1, column: lines[line]!.indexOf('offset') + 1 };
}

// The app's dependencies stay imports (the stack from node_modules), except in the full bundles
const APP_EXTERNAL = /^(?:cuda-js|@cuda-js\/)/;
// full bundles inline the JIT and the layers under it; the native addon's package (and its finder) and the JIT's parser stay imports
const FULL_EXTERNAL = /^(?:@cuda-js\/(?:bindings|pathfinder)|meriyah)(?:\/|$)/;

// the packages of the stack that a full bundle inlines (rollup, with no CommonJS plugin, keeps every other package an import:
// meriyah and lru-cache are this package's devDependencies so that the bundle finds them)
const STACK = /^(?:cuda-js|@cuda-js\/(?:jit|core|program|streams|memory-view|options))$/;

/** TypeScript for rollup (which reads none itself): esbuild's transform, with `./x.js` imports resolved to `./x.ts`, and bare ones by node's rules. */
function typescriptForRollup(bundleStack: boolean): RollupPlugin {
  return {
    name: 'typescript-by-esbuild',
    resolveId(source, importer) {
      if (!importer) return null;
      if (source.startsWith('.')) {
        const ts = resolve(dirname(importer), source.replace(/\.js$/, '.ts'));
        return existsSync(ts) ? ts : null;
      }
      if (!bundleStack || !STACK.test(source)) return { id: source, external: true };
      return createRequire(importer).resolve(source);
    },
    async transform(code, id) {
      if (!id.endsWith('.ts')) return null;
      const r = await esbuild.transform(code, { loader: 'ts', sourcemap: true, sourcefile: id, format: 'esm' });
      return { code: r.code, map: r.map };
    },
  };
}

interface Build {
  readonly name: string;
  readonly plugin: boolean;
  readonly minify: boolean;
  readonly sourcemap: boolean;
  /** The JIT inlined into the app's file. */
  readonly full?: boolean;
}

async function build(b: Build): Promise<string> {
  const file = join(out, `${b.name}.mjs`);
  const plugins = b.plugin ? [b.name.startsWith('esbuild') ? cudaJsPlugin.esbuild() : undefined] : [];
  const external = b.full ? FULL_EXTERNAL : APP_EXTERNAL;
  const bundler = b.name.split('-')[0];
  if (bundler === 'esbuild') {
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: file,
      minify: b.minify,
      sourcemap: b.sourcemap ? 'linked' : false,
      logLevel: 'silent',
      ...(b.full
        ? { external: ['@cuda-js/bindings', '@cuda-js/pathfinder', 'meriyah'] }
        : { external: ['cuda-js', '@cuda-js/*'] }),
      plugins: plugins.filter((p) => p !== undefined),
    });
  } else if (bundler === 'rolldown') {
    const bundle = await rolldown({
      input: entry,
      platform: 'node',
      external,
      logLevel: 'silent',
      plugins: b.plugin ? [cudaJsPlugin.rolldown()] : [],
    });
    await bundle.write({ file, format: 'esm', minify: b.minify, sourcemap: b.sourcemap });
    await bundle.close();
  } else if (bundler === 'vite') {
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      plugins: b.plugin ? [cudaJsPlugin.vite()] : [],
      ssr: b.full
        ? {
            noExternal: [/^cuda-js$/, /^@cuda-js\/(?:jit|core|program|streams|memory-view|options)$/],
            external: ['@cuda-js/bindings', '@cuda-js/pathfinder', 'meriyah'],
          }
        : {},
      build: {
        ssr: entry,
        outDir: out,
        emptyOutDir: false,
        minify: b.minify,
        sourcemap: b.sourcemap,
        rolldownOptions: { output: { entryFileNames: `${b.name}.mjs`, format: 'esm' } },
      },
    });
  } else if (bundler === 'rspack' || bundler === 'webpack') {
    await webpackBuild({
      bundler,
      app,
      entry: './main.ts',
      outDir: out,
      fileName: `${b.name}.mjs`,
      minify: b.minify,
      sourcemap: b.sourcemap,
      external: APP_EXTERNAL,
      plugin: bundler === 'rspack' ? cudaJsPlugin.rspack() : cudaJsPlugin.webpack(),
    });
  } else {
    // the plugin after the TypeScript step: it reads compiled code and maps it back through the step's source map
    const bundle = await rollup({
      input: entry,
      external: b.full ? undefined : external,
      logLevel: 'silent',
      plugins: [typescriptForRollup(b.full === true), ...(b.plugin ? [cudaJsPlugin.rollup()] : [])],
    });
    await bundle.write({ file, format: 'esm', sourcemap: b.sourcemap, plugins: b.minify ? [terser()] : [] });
    await bundle.close();
  }
  return file;
}

const BUNDLERS = ['esbuild', 'rolldown', 'vite', 'rollup', 'rspack', 'webpack'] as const;
const WITH_PLUGIN: Build[] = BUNDLERS.flatMap((bundler) =>
  [false, true].flatMap((minify) =>
    [false, true].map((sourcemap) => ({
      name: `${bundler}-plugin${minify ? '-min' : ''}${sourcemap ? '-map' : ''}`,
      plugin: true,
      minify,
      sourcemap,
    })),
  ),
);
const WITHOUT_PLUGIN: Build[] = [
  ...(['esbuild', 'vite', 'rollup'] as const).map((bundler) => ({
    name: `${bundler}-full-map`,
    plugin: false,
    minify: false,
    sourcemap: true,
    full: true,
  })),
  { name: 'esbuild-noplugin-min', plugin: false, minify: true, sourcemap: false },
];

interface Outcome {
  readonly file: string;
  readonly results?: Record<string, number[]>;
  readonly error?: { name: string; file?: string; line?: number; column?: number; message: string };
  readonly failed?: { name: string; message: string };
}

/** The fixture's results computed in plain JavaScript. */
function expected(): Record<string, number[]> {
  const n = 128;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 13) - 6);
  const y = Float32Array.from({ length: n }, (_, i) => i / 4);
  for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(2 * x[i]!) + y[i]!);
  const sums = [0, 1].map((b) => Array.from(x.subarray(b * 64, b * 64 + 64)).reduce((s, v) => s + v, 0));
  const total = Array.from(x).reduce((s, v) => s + v * v, 0);
  const scaled = Array.from(x, (v) => Math.fround(v * 3));
  const affine = Array.from(x, (v, i) => Math.fround(Math.fround(v * 2) + y[i]!));
  return { axpy: [...y], blockSum: sums, sumOfSquares: [total], scaled, affine };
}

const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files: string[] = [];
  for (const b of [...WITH_PLUGIN, ...WITHOUT_PLUGIN]) files.push(await build(b));
  // one process for every bundle: the simulator, and no GPU needed; run from the root the bundles were built in, as an app is
  // (records name their files relative to it, and an error's snippet is read from there)
  const printed = execFileSync(process.execPath, [join(app, 'run-bundles.mjs'), ...files], {
    cwd: process.cwd(),
    env: { ...process.env, CUDA_JS_SIMULATOR: '1' },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  for (const line of printed.split('\n').filter((l) => l.startsWith('{'))) {
    const o = JSON.parse(line) as Outcome;
    outcomes.set(o.file.replace(/^.*[\\/]/, '').replace(/\.mjs$/, ''), o);
  }
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the fixture app built with the plugin', () => {
  it.each(WITH_PLUGIN.map((b) => b.name))(
    '%s: runs its kernels in the simulator, and locates the error at the .ts line and column',
    (name) => {
      const o = outcomes.get(name);
      expect(o?.failed).toBeUndefined();
      const want = expected();
      for (const [kernel, values] of Object.entries(want)) {
        expect(o?.results?.[kernel]?.length, kernel).toBe(values.length);
        o?.results?.[kernel]?.forEach((v, i) => expect(v, `${kernel}[${i}]`).toBeCloseTo(values[i]!, 3));
      }
      // the record names the file relative to the build's root (the plugin's default, the working directory): no path of the build machine
      expect(o?.error).toMatchObject({
        name: 'FreeVariableError',
        file: relative(process.cwd(), brokenFile).split(sep).join('/'),
        ...brokenAt(),
      });
      expect(o?.error?.message).toContain('x[i] = x[i]! + offset;');
      // nor is it anywhere in the bundle
      expect(readFileSync(o!.file, 'utf8')).not.toContain(app);
    },
  );
});

describe('the fixture app bundled without the plugin', () => {
  it.each(WITHOUT_PLUGIN.filter((b) => b.full).map((b) => b.name))(
    '%s (the JIT inlined): runs, and locates the error in the .ts through the source map',
    (name) => {
      const o = outcomes.get(name);
      expect(o?.failed).toBeUndefined();
      const want = expected();
      for (const [kernel, values] of Object.entries(want))
        o?.results?.[kernel]?.forEach((v, i) => expect(v, `${kernel}[${i}]`).toBeCloseTo(values[i]!, 3));
      expect(Object.keys(o?.results ?? {})).toEqual(Object.keys(want));
      expect(o?.error).toMatchObject({ name: 'FreeVariableError', file: brokenFile, ...brokenAt() });
    },
  );

  it('minified: the kernels get a RewrittenKernelError that names the plugin', () => {
    const o = outcomes.get('esbuild-noplugin-min');
    expect(o?.failed?.name).toBe('RewrittenKernelError');
    expect(o?.failed?.message).toMatch(/rewritten by a bundler or minifier.*@cuda-js\/unplugin/s);
  });
});
