// The fixture app of the aot tests (fixtures/aot-app) built with the
// plugin's aot option by each bundler, and run in a node process of its own
// (the artifacts a process loads are its own), with libNVVM hidden where
// asked: shared by aot.test.ts (simulator) and aot.gpu.test.ts.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nvvmToolchain } from 'cuda-js';
import * as esbuild from 'esbuild';
import { rolldown } from 'rolldown';
import { build as viteBuild } from 'vite';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import type { CudaJsAotOptions } from './plugin-options.js';

const here = dirname(fileURLToPath(import.meta.url));
const app = resolve(here, '../fixtures/aot-app');
const entry = join(app, 'main.ts');
const runBundles = resolve(here, '../fixtures/app/run-bundles.mjs');

/** Where the aot tests write their builds. */
export const AOT_OUT = resolve(here, '../fixtures/.out-aot');

/** Why the build cannot compile kernels here (no libNVVM), or undefined. */
export const nvvmMissing = ((): string | undefined => {
  try {
    nvvmToolchain();
    return undefined;
  } catch (error) {
    return `no libNVVM to build with (${(error as Error).message.split('\n')[0]})`;
  }
})();

export const AOT_BUNDLERS = ['esbuild', 'vite', 'rolldown', 'webpack', 'rspack'] as const;
export type AotBundler = (typeof AOT_BUNDLERS)[number];

/** Builds the app with the plugin's aot option; gives the bundle and the folder it was written into. */
export async function buildAotApp(
  bundler: AotBundler,
  aot: CudaJsAotOptions,
  name: string = bundler,
): Promise<{ file: string; dir: string }> {
  const dir = join(AOT_OUT, name);
  const plugin = { root: app, aot };
  if (bundler === 'esbuild') {
    // outfile, not outdir: the assets go beside the bundle
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(dir, 'app.mjs'),
      minify: true,
      logLevel: 'silent',
      external: ['cuda-js', '@cuda-js/*'],
      plugins: [cudaJsPlugin.esbuild(plugin)],
    });
  } else if (bundler === 'rolldown') {
    const bundle = await rolldown({
      input: entry,
      platform: 'node',
      external: /^(?:cuda-js|@cuda-js\/)/,
      logLevel: 'silent',
      plugins: [cudaJsPlugin.rolldown(plugin)],
    });
    await bundle.write({ dir, entryFileNames: 'app.mjs', format: 'esm', minify: true });
    await bundle.close();
  } else if (bundler === 'webpack' || bundler === 'rspack') {
    const own = bundler === 'rspack' ? cudaJsPlugin.rspack(plugin) : cudaJsPlugin.webpack(plugin);
    // loaded only here: the GPU host's carried tree leaves webpack and rspack behind
    const { webpackBuild } = await import('./webpack-build.test-support.js');
    await webpackBuild({
      bundler,
      app,
      entry: './main.ts',
      outDir: dir,
      fileName: 'app.mjs',
      minify: true,
      sourcemap: false,
      external: /^(?:cuda-js|@cuda-js\/)/,
      plugin: own,
    });
  } else {
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      plugins: [cudaJsPlugin.vite(plugin)],
      // the stack stays an import, as for an app that installs it (vite would inline this workspace's linked packages)
      ssr: { external: ['cuda-js'] },
      // vite drops the assets of SSR builds unless asked
      build: {
        ssr: entry,
        ssrEmitAssets: true,
        outDir: dir,
        emptyOutDir: true,
        minify: true,
        rolldownOptions: { output: { entryFileNames: 'app.mjs', format: 'esm' } },
      },
    });
  }
  return { file: join(dir, 'app.mjs'), dir };
}

/** What the app's run() reported (fixtures/aot-app/main.ts). */
export interface Outcome {
  file: string;
  artifacts?: string[][];
  answers?: Record<string, { kind?: string; arch?: string; symbol?: string; error?: string; message?: string }>;
  nvvm?: string;
  typed?: number;
  lowered?: number;
  results?: Record<string, number[]>;
  /** Where each kernel's specializations came from (`'artifact-cubin'`, `'artifact-ptx'`, `'jit'`, `'simulator'`). */
  origins?: Record<string, string[]>;
  failed?: { name: string; message: string };
}

/** The app's results computed in plain JavaScript. */
export function expectedResults(): Record<string, number[]> {
  const n = 128;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 13) - 6);
  const y = Float32Array.from({ length: n }, (_, i) => i / 4);
  for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(2 * x[i]!) + y[i]!);
  return { axpy: [...y], sumOfSquares: [Array.from(x).reduce((s, v) => s + v * v, 0)] };
}

/** Runs the bundle in a node process of its own with `env` added; what its run() gave. */
export function runAotApp(file: string, env: Readonly<Record<string, string>>): Outcome {
  const printed = execFileSync(process.execPath, [runBundles, file], {
    cwd: AOT_OUT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const line = printed.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`the app printed no report:\n${printed}`);
  return JSON.parse(line) as Outcome;
}
