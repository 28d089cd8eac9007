// The AOT benchmark's driver: process start -> first checked result of the
// app with its kernel from an artifact (libNVVM hidden, and present),
// against the same app through the JIT (cold: no disk cache) and
// numba-cuda's cold start (../jit/numba_anchors.py cold), interleaved run by
// run; then the load of one AOT kernel. Prints a markdown report and writes
// the results as JSON.
//   node aot-bench.mjs <artifact kernels.js> <results.json> [runs]
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, fmt, median, ratio, runChild } from '../jit/bench-util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [artifact, out, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const python = process.env.PYTHON || 'python3';
// every case cold: no JIT disk cache, no driver cache of compiled PTX
const cold = { CUDA_JS_JIT_CACHE: '0', CUDA_CACHE_DISABLE: '1' };
const hidden = {
  CUDA_JS_LIB_NVVM: '/nonexistent/cuda-js-bench/libnvvm.so',
  CUDA_JS_LIBDEVICE_DIR: '/nonexistent/cuda-js-bench',
};
const child = (command, args, env) =>
  runChild(command, args, { cwd: here, extraEnv: { ...cold, ...env }, timeoutMs: 60_000 });

const cases = {
  'cuda-js AOT (libNVVM hidden)': () => child(process.execPath, [join(here, 'app.mjs'), 'aot', artifact], hidden),
  'cuda-js AOT (libNVVM present)': () => child(process.execPath, [join(here, 'app.mjs'), 'aot', artifact], {}),
  'cuda-js JIT (cold, no disk cache)': () => child(process.execPath, [join(here, 'app.mjs'), 'jit'], {}),
  'numba-cuda cold': () => child(python, [join(here, '..', 'jit', 'numba_anchors.py'), 'cold'], {}),
};

const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, fn] of Object.entries(cases)) {
    const s = fn();
    samples[name].push(s);
    process.stderr.write(
      `  run ${run + 1}/${runs}: ${name}: ${s.error ? `error: ${s.error}` : `${s.wallMs.toFixed(0)} ms wall, ${((s.maxRssKB ?? 0) / 1024).toFixed(0)} MB`}\n`,
    );
    if (s.error && /numba-cuda unavailable|ENOENT|No module named/.test(s.error)) cases[name] = () => s;
  }
}

function summary(list) {
  const good = list.filter((s) => !s.error && s.ok !== false);
  const errors = [...new Set(list.filter((s) => s.error || s.ok === false).map((s) => s.error ?? 'wrong result'))];
  if (good.length === 0) return { wallMs: null, reason: errors.join('; ') || 'no runs', runs: list };
  const phases = {};
  for (const key of Object.keys(good[0].phasesMs ?? {})) phases[key] = median(good.map((s) => s.phasesMs?.[key]));
  return {
    ok: good.length,
    failed: list.length - good.length,
    errors: errors.length ? errors : undefined,
    wallMs: median(good.map((s) => s.wallMs)),
    maxRssMB: median(good.map((s) => (s.maxRssKB === undefined ? undefined : s.maxRssKB / 1024))),
    phasesMs: phases,
    origin: good[0].origin,
    counts: good[0].counts,
    versions: good[0].versions,
    runs: list,
  };
}

const results = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v)]));
process.stderr.write('  the load of one AOT kernel\n');
const load = runChild(process.execPath, [join(here, 'aot-load.mjs'), artifact, '200'], {
  cwd: here,
  extraEnv: { ...cold, ...hidden },
  timeoutMs: 120_000,
});

const aot = results['cuda-js AOT (libNVVM hidden)'];
const jit = results['cuda-js JIT (cold, no disk cache)'];
const numba = results['numba-cuda cold'];
const lines = [
  '## Ahead-of-time kernels: process start to first checked result',
  '',
  `${runs} interleaved runs of each, medians; every case cold (CUDA_JS_JIT_CACHE=0, CUDA_CACHE_DISABLE=1). The app: context, a 4096-element axpy launched on device arrays, copied back, checked (../jit/cold-body.mjs's).`,
  '',
  '| case | wall (ms) | max RSS (MB) | context (ms) | launched (ms) | checked (ms) | code | typed / lowered | vs JIT | vs numba-cuda |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const [name, r] of Object.entries(results)) {
  const p = r.phasesMs ?? {};
  const counts = r.counts ? `${r.counts.typed} / ${r.counts.lowered}` : '—';
  const code = r.origin ?? (r.wallMs === null ? `not measured: ${r.reason}` : '—');
  lines.push(
    `| ${name} | ${fmt(r.wallMs, 0)} | ${fmt(r.maxRssMB, 0)} | ${fmt(p.context, 0)} | ${fmt(p.launched, 0)} | ${fmt(p.checked, 0)} | ${code} | ${counts} | ${ratio(r.wallMs, jit.wallMs)} | ${ratio(r.wallMs, numba.wallMs)} |`,
  );
}
lines.push('');
if (load.error || load.ok === false)
  lines.push(`Load of one AOT kernel: not measured (${load.error ?? `origin ${load.origin}`}).`);
else {
  lines.push(
    `Load of one AOT kernel (compile(signature) of a fresh kernel served by the artifact: hash check, cuModuleLoadData of the cubin, cuModuleGetFunction, launch plan; libNVVM hidden): median ${fmt(load.loadMs, 3)} ms, p90 ${fmt(load.p90LoadMs, 3)} ms over ${load.count} kernels (the first ${fmt(load.firstLoadMs, 3)} ms); loadKernelArtifact of kernels.js ${fmt(load.artifactLoadMs, 3)} ms.`,
  );
}
const goal = (ok) => (ok ? 'met' : 'not met');
lines.push('');
lines.push(
  `Goals (issue 21): wall ≤ 400 ms: ${goal(aot.wallMs !== null && aot.wallMs <= 400)} (${fmt(aot.wallMs, 0)} ms); max RSS ≤ 150 MB: ${goal(aot.maxRssMB !== undefined && aot.maxRssMB <= 150)} (${fmt(aot.maxRssMB, 0)} MB); load of one kernel ≤ 0.5 ms: ${goal(typeof load.loadMs === 'number' && load.loadMs <= 0.5)} (${fmt(load.loadMs, 3)} ms).`,
);
process.stdout.write(`${lines.join('\n')}\n`);
writeFileSync(out, `${JSON.stringify({ runs, results, load }, null, 1)}\n`);
emit({ written: out });
