// The fixture app of the ahead-of-time tests: a kernels module (plain
// JavaScript importing the built package, as an app without a bundler
// does), written into a temporary folder, and node processes that build an
// artifact from it and load it, with libNVVM hidden where asked
// (CUDA_JS_LIB_NVVM and CUDA_JS_LIBDEVICE_DIR at paths that do not exist:
// pathfinder then finds neither, and every JIT compile would fail).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The built package, which the child processes import (npm test builds it first). */
export const JIT_DIST = join(import.meta.dirname, '..', '..', 'dist', 'index.js');
/** The built program package, for `nvvmToolchain()`. */
export const PROGRAM_DIST = join(import.meta.dirname, '..', '..', '..', 'program', 'dist', 'index.js');
/** The built bindings, for `loadedLibraries()`. */
export const BINDINGS_DIST = join(import.meta.dirname, '..', '..', '..', 'bindings', 'dist', 'index.js');

/** The environment that hides libNVVM and libdevice from pathfinder (shared by the build plugin's AOT test). */
export { HIDE_NVVM } from '@cuda-js/test-support/toolchain';

/** The signatures of the fixture's kernels, as their keys. */
export const AXPY_F32 = "f32, array(f32, 1, 'C'), array(f32, 1, 'C')";
export const AXPY_F64 = "f64, array(f64, 1, 'C'), array(f64, 1, 'C')";

/** The kernels module: axpy for two signatures, and a block sum (shared memory, barriers, an atomic, a device function). */
export function kernelsModule(variant = ''): string {
  return `import { jit, cuda, f32, f64, array } from ${JSON.stringify(JIT_DIST)};
export const axpy = jit((a, x, y) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i] + y[i]${variant};
}, { name: 'axpy', signatures: [[f32, array(f32, 1), array(f32, 1)], [f64, array(f64, 1), array(f64, 1)]] });
const square = jit.device((v) => v * v);
export const blockSum = jit((x, sums) => {
  const sm = cuda.shared.array(128, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  sm[t] = i < x.length ? square(x[i]) : 0;
  cuda.syncthreads();
  for (let s = 64; s > 0; s >>= 1) {
    if (t < s) sm[t] = sm[t] + sm[t + s];
    cuda.syncthreads();
  }
  if (t === 0) cuda.atomic.add(sums, 0, sm[0]);
}, { name: 'blockSum', constants: { square }, signatures: [[array(f32, 1), array(f32, 1)]] });
export const notDeclared = jit((x) => { x[0] = 1; });
`;
}

/** A fresh folder with the kernels module in it as `kernels.mjs`. */
export function fixtureApp(variant = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-aot-app-'));
  writeFileSync(join(dir, 'kernels.mjs'), kernelsModule(variant));
  return dir;
}

/** Runs an ES module's text with node in `dir`: its output, and the last line read as JSON where it is. */
export function runNode(
  dir: string,
  code: string,
  env: Readonly<Record<string, string>> = {},
): { status: number | null; out: string; json: unknown } {
  const file = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  const r = spawnSync(process.execPath, [file], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const out = `${r.stdout}${r.stderr}`;
  let json: unknown;
  try {
    json = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    json = undefined;
  }
  return { status: r.status, out, json };
}

/** Builds the app's artifact into `dir/out` in a child process (with libNVVM), through the package's own API. */
export function buildInChild(
  dir: string,
  options: { arch: readonly string[]; ptx?: readonly string[] | false },
): { status: number | null; out: string } {
  return runNode(
    dir,
    `import { collectKernels, buildKernelArtifact, writeKernelArtifact } from ${JSON.stringify(JIT_DIST)};
const kernels = await collectKernels(() => import('./kernels.mjs'));
const artifact = buildKernelArtifact(kernels, ${JSON.stringify(options)});
writeKernelArtifact(artifact, './out');
console.log(JSON.stringify(kernels.map((k) => k.name)));`,
  );
}
