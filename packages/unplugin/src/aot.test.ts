// The plugin's aot option: the fixture app (fixtures/aot-app, kernels with
// declared signatures) bundled and minified by esbuild, vite, rolldown,
// webpack and rspack with `aot: { arch: ['sm_80', 'sm_90'] }` gets its
// kernels compiled at build time (libNVVM and ptxas here, no GPU): the
// artifact is emitted as assets (cubins for both architectures, PTX of the
// newest) and embedded in the bundle, which then runs in a process where
// libNVVM is hidden, answering launches from the artifact with nothing typed
// or lowered. Results are checked in the simulator (on a GPU:
// aot.gpu.test.ts). Needs the packages built (dist/), as CI does first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWhen, HIDE_NVVM, ptxasMissing } from '@cuda-js/test-support/toolchain';
import { nvvmToolchain } from 'cuda-js';
import * as esbuild from 'esbuild';
import { rolldown } from 'rolldown';
import { build as viteBuild } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import type { CudaJsAotOptions } from './plugin-options.js';
import { webpackBuild } from './webpack-build.test-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const app = resolve(here, '../fixtures/aot-app');
const out = resolve(here, '../fixtures/.out-aot');
const entry = join(app, 'main.ts');
const runBundles = resolve(here, '../fixtures/app/run-bundles.mjs');

const nvvmMissing = ((): string | undefined => {
  try {
    nvvmToolchain();
    return undefined;
  } catch (error) {
    return `no libNVVM to build with (${(error as Error).message.split('\n')[0]})`;
  }
})();

const BUNDLERS = ['esbuild', 'vite', 'rolldown', 'webpack', 'rspack'] as const;

const AOT: CudaJsAotOptions = { arch: ['sm_80', 'sm_90'], assets: 'kernels-aot' };
const AXPY = "f32, array(f32, 1, 'C'), array(f32, 1, 'C')";

/** Builds the app with the plugin's aot option; gives the bundle and the folder it was written into. */
async function build(bundler: (typeof BUNDLERS)[number]): Promise<{ file: string; dir: string }> {
  const dir = join(out, bundler);
  const plugin = { root: app, aot: AOT };
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
    const bundle = await rolldown({ input: entry, platform: 'node', external: /^(?:cuda-js|@cuda-js\/)/, logLevel: 'silent', plugins: [cudaJsPlugin.rolldown(plugin)] });
    await bundle.write({ dir, entryFileNames: 'app.mjs', format: 'esm', minify: true });
    await bundle.close();
  } else if (bundler === 'webpack' || bundler === 'rspack') {
    const own = bundler === 'rspack' ? cudaJsPlugin.rspack(plugin) : cudaJsPlugin.webpack(plugin);
    await webpackBuild({ bundler, app, entry: './main.ts', outDir: dir, fileName: 'app.mjs', minify: true, sourcemap: false, external: /^(?:cuda-js|@cuda-js\/)/, plugin: own });
  } else {
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      plugins: [cudaJsPlugin.vite(plugin)],
      // the stack stays an import, as for an app that installs it (vite would inline this workspace's linked packages)
      ssr: { external: ['cuda-js'] },
      // vite drops the assets of SSR builds unless asked
      build: { ssr: entry, ssrEmitAssets: true, outDir: dir, emptyOutDir: true, minify: true, rolldownOptions: { output: { entryFileNames: 'app.mjs', format: 'esm' } } },
    });
  }
  return { file: join(dir, 'app.mjs'), dir };
}

interface Manifest {
  jitVersion: string;
  kernels: { name: string; specializations: { signature: string; code: { kind: string; arch: string; file: string; bytes: number }[] }[] }[];
}

interface Outcome {
  file: string;
  artifacts?: string[][];
  answers?: Record<string, { kind?: string; arch?: string; symbol?: string; error?: string; message?: string }>;
  nvvm?: string;
  typed?: number;
  lowered?: number;
  results?: Record<string, number[]>;
  failed?: { name: string; message: string };
}

function expected(): Record<string, number[]> {
  const n = 128;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 13) - 6);
  const y = Float32Array.from({ length: n }, (_, i) => i / 4);
  for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(2 * x[i]!) + y[i]!);
  return { axpy: [...y], sumOfSquares: [Array.from(x).reduce((s, v) => s + v * v, 0)] };
}


describeWhen([nvvmMissing, ptxasMissing], "the plugin's aot option: kernels built with the app, run without libNVVM", () => {
  const built = new Map<string, { file: string; dir: string }>();
  const outcomes = new Map<string, Outcome>();

  beforeAll(async () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const bundler of BUNDLERS) built.set(bundler, await build(bundler));
    // a process for each bundle (the artifacts a process loaded are its own), libNVVM hidden, in the simulator (no GPU here)
    for (const [bundler, b] of built) {
      const printed = execFileSync(process.execPath, [runBundles, b.file], { cwd: out, env: { ...process.env, ...HIDE_NVVM, CUDA_JS_SIMULATOR: '1' }, encoding: 'utf8', maxBuffer: 64 << 20 });
      const line = printed.split('\n').find((l) => l.startsWith('{'));
      if (line) outcomes.set(bundler, JSON.parse(line) as Outcome);
    }
  }, 180_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it.each(BUNDLERS)('%s: emits the artifact as assets, cubins for sm_80 and sm_90 and PTX of compute_90', (bundler) => {
    const folder = join(built.get(bundler)!.dir, 'kernels-aot', 'kernels');
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.kernels.map((k) => k.name).sort()).toEqual(['axpy', 'sumOfSquares']);
    for (const k of manifest.kernels) {
      expect(k.specializations).toHaveLength(1);
      const code = k.specializations[0]!.code;
      expect(code.map((c) => `${c.kind} ${c.arch}`)).toEqual(['cubin sm_80', 'cubin sm_90', 'ptx compute_90']);
      for (const c of code) {
        const data = readFileSync(join(folder, c.file));
        expect(data.byteLength, c.file).toBe(c.bytes);
        // a cubin is an ELF file; the PTX names its target
        if (c.kind === 'cubin') expect(data.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
        else expect(data.toString('utf8')).toMatch(/\.target sm_90\b/);
      }
    }
    expect(manifest.kernels.find((k) => k.name === 'axpy')?.specializations[0]?.signature).toBe(AXPY);
    expect(existsSync(join(folder, 'kernels.js'))).toBe(true);
  });

  it.each(BUNDLERS)('%s: embeds the artifact, loaded before the kernels run; covered launches need no typing, lowering or libNVVM', (bundler) => {
    const o = outcomes.get(bundler);
    expect(o?.failed).toBeUndefined();
    // hidden for real: libNVVM cannot be loaded in the app's process
    expect(o?.nvvm).toBe('LibraryNotFoundError');
    expect(o?.artifacts).toEqual([['axpy', 'sumOfSquares']]);
    expect(o?.answers?.['sm_90']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'axpy' });
    // an older minor of the major runs on sm_86; a newer device takes the PTX
    expect(o?.answers?.['sm_86']).toMatchObject({ kind: 'cubin', arch: 'sm_80' });
    expect(o?.answers?.['sm_100']).toMatchObject({ kind: 'ptx', arch: 'compute_90' });
    expect(o?.answers?.['sumOfSquares']).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'sumOfSquares' });
    expect([o?.typed, o?.lowered]).toEqual([0, 0]);
  });

  it.each(BUNDLERS)('%s: an architecture the build does not cover is a KernelNotBuiltError that lists what was built (libNVVM hidden)', (bundler) => {
    const answer = outcomes.get(bundler)?.answers?.['sm_75'];
    expect(answer?.error).toBe('KernelNotBuiltError');
    expect(answer?.message).toContain(`axpy(${AXPY}): cubin sm_80, sm_90; PTX compute_90`);
    expect(answer?.message).toContain('LibraryNotFoundError');
  });

  it.each(BUNDLERS)('%s: the kernels give the right results (simulator)', (bundler) => {
    const o = outcomes.get(bundler);
    const want = expected();
    for (const [kernel, values] of Object.entries(want)) {
      expect(o?.results?.[kernel]?.length, kernel).toBe(values.length);
      o?.results?.[kernel]?.forEach((v, i) => expect(v, `${kernel}[${i}]`).toBeCloseTo(values[i]!, 3));
    }
  });
});
