// Part 3: a disk-cache hit from a new process, per kernel, cuda-js against
// numba-cuda. Each side gets an empty cache folder of its own (cuda-js:
// CUDA_JS_CACHE_DIR, numba: NUMBA_CACHE_DIR); a first process per kernel
// compiles and fills it (the miss), then `runs` fresh processes per kernel
// and side, taking turns, find it there (the hits). A child measures:
//   cuda-js (cache-child.mjs): performance.now() around kernel.compile(signature)
//     of jit(fn, { cache: true }), the context and arrays made before;
//   numba-cuda (numba_breadth.py cache): the first call of @cuda.jit(cache=True)
//     (launch and sync included) minus the second, the context made before.
// Each run also records what the child left in its cache folder (files
// there, files it added, files it changed), looked at here after it exited.
// usage: node cache-latency.mjs <cache folder> [runs]   (prints one JSON line)
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, runChild } from '../jit/bench-util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [folder, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? 5);
const python = process.env.PYTHON || 'python3';
const KERNELS = ['reduce', 'matmul'];
const jsDir = join(folder, 'cuda-js');
const numbaDir = join(folder, 'numba');
for (const dir of [jsDir, numbaDir]) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}

/** path -> "size mtime" of every file under dir. */
function snapshot(dir) {
  const files = {};
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const s = statSync(p);
        files[p] = `${s.size} ${s.mtimeMs}`;
      }
    }
  };
  if (dir) walk(dir);
  return files;
}

/** What a child left in `dir`: the files there after it, those it added (a miss) and those it changed (an LRU's access time: still a hit). */
function cacheEffect(dir, before) {
  const after = snapshot(dir);
  const paths = Object.keys(after);
  return {
    cacheFiles: paths.length,
    newFiles: paths.filter((p) => before[p] === undefined).length,
    changedFiles: paths.filter((p) => before[p] !== undefined && after[p] !== before[p]).length,
  };
}

const child = (dir, command, args, extraEnv) => {
  const before = snapshot(dir);
  const r = runChild(command, args, { cwd: here, extraEnv, timeoutMs: 120_000 });
  return { ...r, ...cacheEffect(dir, before) };
};
const sides = {
  'cuda-js': (kernel) =>
    child(jsDir, process.execPath, [join(here, 'cache-child.mjs'), kernel], { CUDA_JS_CACHE_DIR: jsDir }),
  'numba-cuda': (kernel) =>
    child(numbaDir, python, [join(here, 'numba_breadth.py'), 'cache', kernel], { NUMBA_CACHE_DIR: numbaDir }),
};
const say = (side, kernel, what, r) =>
  process.stderr.write(
    `  cache, ${what}: ${side} ${kernel}: ${r.error ? `error: ${r.error}` : `${r.compileMs?.toFixed(2)} ms (wall ${r.wallMs.toFixed(0)} ms)`}\n`,
  );

// kernels[kernel][side] = { miss, hits: [] }
const kernels = Object.fromEntries(
  KERNELS.map((k) => [k, Object.fromEntries(Object.keys(sides).map((s) => [s, { miss: undefined, hits: [] }]))]),
);
const unavailable = {};
for (const kernel of KERNELS) {
  for (const [side, run] of Object.entries(sides)) {
    const r = run(kernel);
    kernels[kernel][side].miss = r;
    say(side, kernel, 'filling', r);
    // a side that cannot run at all (numba-cuda missing) is not retried
    if (r.error && /numba-cuda unavailable|ENOENT/.test(r.error)) unavailable[side] = r;
  }
}
for (let i = 0; i < runs; i++) {
  for (const kernel of KERNELS) {
    for (const [side, run] of Object.entries(sides)) {
      const r = unavailable[side] ?? run(kernel);
      kernels[kernel][side].hits.push(r);
      if (!unavailable[side]) say(side, kernel, `hit ${i + 1}/${runs}`, r);
    }
  }
}
emit({ runs, kernels });
