// The CPU half of a disk-cache hit (issue 23 step 5), on any machine, no GPU
// needed: in fresh processes, each stage that a kernel's first launch runs on
// a hit before the cubin is handed to the driver, timed on its own, in the
// order JitKernel runs them (jit.ts #specializationFor, #gpuSpecialization):
//   define     jit(fn, { cache: true }): options, constants, parse (at the definition, not the launch)
//   types      the arguments' types and the signature's key
//   artifacts  the loaded kernel artifacts asked (none loaded)
//   cache      wantsCache and jitCache(): the process's CompileCache
//   key        the first-level key (kernelSourceKey)
//   entry      readCachedKernel: the entry file read and checked, its ABI decoded
// The stages call the JIT's own modules (its per-file build in dist/), so the
// code timed is the code a launch runs; the driver's part (ObjectCode.fromCubin,
// getKernel) and the launcher are the GPU host's (hit.mjs there).
// A first child writes the entry (a stand-in cubin under the real key, stamped
// with an existing file as the toolchain); then `runs` fresh children hit it.
// usage: node hit-cpu.mjs [runs]   (prints a markdown table of medians)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emit, median, reason } from '../jit/bench-util.mjs';

const here = fileURLToPath(import.meta.url);
const STAGES = ['define', 'types', 'artifacts', 'cache', 'key', 'entry'];
const ARCH = 'sm_90';
const CUBIN_BYTES = 6 * 1024;

if (process.argv[2] === '--child') await child(process.argv[3] === 'fill');
else parent(Number(process.argv[2] ?? 7));

function parent(runs) {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-hit-cpu-'));
  const spawn = (mode) => {
    const r = spawnSync(process.execPath, [here, '--child', mode], {
      env: { ...process.env, CUDA_JS_CACHE_DIR: dir, CUDA_JS_JIT_CACHE: '' },
      encoding: 'utf8',
    });
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    try {
      return JSON.parse(last);
    } catch {
      return { ok: false, error: (r.stderr || last || `exit ${r.status}`).trim().split('\n').at(-1) };
    }
  };
  try {
    const filled = spawn('fill');
    if (!filled.ok) throw new Error(`filling the cache failed: ${filled.error}`);
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const s = spawn('hit');
      if (!s.ok) throw new Error(`run ${i + 1}: ${s.error}`);
      samples.push(s);
    }
    const pick = (f) => median(samples.map(f)).toFixed(3);
    console.log(
      `disk-cache hit, CPU stages before the driver: median of ${runs} fresh processes (ms; Node ${process.version})\n`,
    );
    console.log('| stage | ms |');
    console.log('|---|---|');
    for (const stage of STAGES) console.log(`| ${stage} | ${pick((s) => s.ms[stage])} |`);
    console.log(
      `| launch total (types → entry) | ${pick((s) => STAGES.slice(1).reduce((sum, k) => sum + s.ms[k], 0))} |`,
    );
    console.log(`\nimport of the JIT's modules (not part of the hit): ${pick((s) => s.importMs)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function child(fill) {
  try {
    const t0 = performance.now();
    const requireJit = createRequire(new URL('../jit/package.json', import.meta.url));
    const jitDist = join(dirname(requireJit.resolve('@cuda-js/jit/package.json')), 'dist');
    const load = (file) => import(pathToFileURL(join(jitDist, file)).href);
    const [
      { jit },
      { argumentTypes },
      { artifactChoice },
      { jitCache, wantsCache },
      kernelCache,
      { signatureKey },
      { typeKernel },
      { parseKernel },
      core,
      { StridedMemoryView },
    ] = await Promise.all([
      load('jit.js'),
      load('launch/argument-types.js'),
      load('aot/artifact-choice.js'),
      load('compile/jit-cache.js'),
      load('compile/kernel-cache.js'),
      load('typing/jit-types.js'),
      load('typing/type-kernel.js'),
      load('parse/parse-kernel.js'),
      import(pathToFileURL(requireJit.resolve('@cuda-js/core')).href),
      import(pathToFileURL(createRequire(requireJit.resolve('@cuda-js/core')).resolve('@cuda-js/memory-view')).href),
    ]);
    const importMs = performance.now() - t0;
    const { kernelSourceKey, readCachedKernel } = kernelCache;
    const fn = (a, x, y) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i] + y[i];
    };
    const n = 4096;
    // views of made-up device pointers: only their layout is read before the driver
    const view = (ptr) => StridedMemoryView.fromPointer(ptr, { dtype: 'float32', shape: [n], exporter: {} });
    const args = [core.f32(2), view(0x7f0000000000n), view(0x7f0000010000n)];
    const ms = {};
    const time = (stage, f) => {
      const s = performance.now();
      const out = f();
      ms[stage] = performance.now() - s;
      return out;
    };

    const kernel = time('define', () => jit(fn, { cache: true }));
    const params = ['a', 'x', 'y'];
    const { types, key } = time('types', () => {
      const t = argumentTypes(args, params, 'gpu');
      return { types: t, key: signatureKey(t) };
    });
    time('artifacts', () => artifactChoice({ name: kernel.name, hash: () => '', definedAt: undefined }, key, ARCH));
    const options = { arch: undefined, fma: undefined, fastMath: undefined, name: kernel.name };
    const cache = time('cache', () => (wantsCache(true) ? jitCache() : undefined));
    const symbol = 'fn';
    const sourceKey = time('key', () =>
      kernelSourceKey({
        source: Function.prototype.toString.call(fn),
        constants: {},
        signature: key,
        symbol,
        options: { arch: options.arch ?? ARCH, fma: options.fma, fastMath: options.fastMath, route: 'cubin' },
      }),
    );
    if (fill) {
      const typed = typeKernel(parseKernel(fn, undefined), types, { symbol, constants: {}, captured: [] });
      const tool = statSync(process.execPath);
      const abi = { symbol, params: typed.params, collectives: typed.collectives };
      const code = new Uint8Array(CUBIN_BYTES).map((_, i) => (i * 31) & 0xff);
      cache.set(sourceKey, {
        codeType: 'cubin',
        name: symbol,
        code,
        symbolMapping: {},
        metadata: {
          abi: JSON.stringify(abi),
          toolchain: JSON.stringify({ path: process.execPath, size: tool.size, mtimeMs: tool.mtimeMs }),
        },
      });
      emit({ ok: true, filled: sourceKey });
      return;
    }
    const hit = time('entry', () => readCachedKernel(cache, sourceKey));
    if (!hit || hit.code.byteLength !== CUBIN_BYTES) throw new Error(`no hit for ${sourceKey}`);
    emit({ ok: true, importMs, ms });
  } catch (error) {
    emit({ ok: false, error: reason(error) });
  }
}
