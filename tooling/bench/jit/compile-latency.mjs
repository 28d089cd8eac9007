// Part 1: compile latency against numba-cuda, interleaved run by run.
//  (a) process start -> checked result of a tiny kernel: the wall time from
//      spawn to exit, measured here, and the child's max RSS at exit;
//  (b) the first kernel after the context exists, (c) the next kernel (a
//      different source): measured inside a fresh child.
// usage: node compile-latency.mjs [runs]   (prints one JSON line)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, median, runChild } from './bench-util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 5);
const python = process.env.PYTHON || 'python3';
const TIMEOUT_MS = 60_000;

/** A fresh child (see runChild), run from this folder. */
const child = (command, args, extraEnv = {}) => runChild(command, args, { cwd: here, extraEnv, timeoutMs: TIMEOUT_MS });

const cases = {
  'cuda-js cold (import cuda-js)': () => child(process.execPath, [join(here, 'cold-cuda-js.mjs')]),
  'cuda-js cold (import @cuda-js/jit + core + memory-view)': () =>
    child(process.execPath, [join(here, 'cold-jit.mjs')]),
  'numba-cuda cold': () => child(python, [join(here, 'numba_anchors.py'), 'cold']),
  'cuda-js kernels': () => child(process.execPath, [join(here, 'kernels-latency.mjs')]),
  'numba-cuda kernels': () => child(python, [join(here, 'numba_anchors.py'), 'kernels']),
};

const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, fn] of Object.entries(cases)) {
    const s = fn();
    samples[name].push(s);
    process.stderr.write(
      `  compile latency, run ${run + 1}/${runs}: ${name}: ${s.error ? `error: ${s.error}` : `${s.wallMs.toFixed(0)} ms wall`}\n`,
    );
    // a case that cannot run (numba-cuda missing) is not retried
    if (s.error && /numba-cuda unavailable|ENOENT/.test(s.error)) cases[name] = () => s;
  }
}

function summary(list) {
  const good = list.filter((s) => !s.error && s.ok !== false);
  const errors = [...new Set(list.filter((s) => s.error || s.ok === false).map((s) => s.error ?? 'wrong result'))];
  if (good.length === 0) return { value: null, reason: errors.join('; ') || 'no runs', runs: list };
  const pick = (f) => median(good.map(f));
  const phases = {};
  for (const key of Object.keys(good[0].phasesMs ?? {})) phases[key] = pick((s) => s.phasesMs?.[key]);
  return {
    runs: list,
    ok: good.length,
    failed: list.length - good.length,
    errors: errors.length ? errors : undefined,
    wallMs: pick((s) => s.wallMs),
    maxRssMB: pick((s) => (s.maxRssKB === undefined ? undefined : s.maxRssKB / 1024)),
    phasesMs: Object.keys(phases).length ? phases : undefined,
    firstMs: pick((s) => s.firstMs),
    nextMs: pick((s) => s.nextMs),
    versions: good[0].versions,
  };
}

emit({ runs, results: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v)])) });
