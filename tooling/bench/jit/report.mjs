// Merges what run.sh gathered into one markdown report on stdout and a JSON
// of the results.  usage: node report.mjs <results dir> <json out>
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, mark, median, orNull, ratio, readJson, table } from './bench-util.mjs';

const [dir, jsonOut = '/tmp/jit-bench.json'] = process.argv.slice(2);

const lines = [];
const say = (s = '') => lines.push(s);
const notes = [];

const host = readJson(join(dir, 'host.json'));
say(`## JIT benchmark (${host.date ?? new Date().toISOString()})`);
say();
say(
  `GPU: ${host.gpu ?? '?'}; CPU: ${host.cpu ?? '?'} (${host.cores ?? '?'} cores); Node.js ${host.node ?? '?'}; ${host.python ?? 'python3: ?'}; nvcc: ${host.nvcc ?? '?'}; arch ${host.arch ?? '?'}`,
);

// ---- 1. compile latency
const compile = readJson(join(dir, 'compile.json'));
const numbaLaunchErrors = {};
const c = compile.results ?? {};
const pick = (name) => c[name] ?? { value: null, reason: compile.error ?? 'not run' };
const jsCold = pick('cuda-js cold (import cuda-js)');
const jsColdJit = pick('cuda-js cold (import @cuda-js/jit + core + memory-view)');
const nbCold = pick('numba-cuda cold');
const jsK = pick('cuda-js kernels');
const nbK = pick('numba-cuda kernels');
const s = (ms) => (typeof ms === 'number' ? `${(ms / 1000).toFixed(3)} s` : '—');
const ms = (v) => (typeof v === 'number' ? `${v.toFixed(1)} ms` : '—');
const mb = (v) => (typeof v === 'number' ? `${v.toFixed(0)} MB` : '—');
say();
say(
  `### 1. Compile latency against numba-cuda (median of ${compile.runs ?? '?'} runs, each in a fresh process, interleaved)`,
);
say();
say(
  table(
    ['measure', 'cuda-js', 'numba-cuda (this run)', 'cuda-js / numba', 'goal', 'numba earlier on this host'],
    [
      [
        '(a) process start → checked result (wall, import cuda-js)',
        s(jsCold.wallMs),
        s(nbCold.wallMs),
        ratio(jsCold.wallMs, nbCold.wallMs),
        `≤ 0.6 s${mark(jsCold.wallMs === undefined ? undefined : jsCold.wallMs <= 600)}`,
        '2.68 s',
      ],
      [
        '(a) the same, import @cuda-js/jit + core + memory-view',
        s(jsColdJit.wallMs),
        s(nbCold.wallMs),
        ratio(jsColdJit.wallMs, nbCold.wallMs),
        `≤ 0.6 s${mark(jsColdJit.wallMs === undefined ? undefined : jsColdJit.wallMs <= 600)}`,
        '2.68 s',
      ],
      [
        '(a) max RSS at exit (import cuda-js)',
        mb(jsCold.maxRssMB),
        mb(nbCold.maxRssMB),
        ratio(jsCold.maxRssMB, nbCold.maxRssMB),
        `≤ 150 MB${mark(jsCold.maxRssMB === undefined ? undefined : jsCold.maxRssMB <= 150)}`,
        '640 MB',
      ],
      [
        '(a) max RSS at exit (import @cuda-js/jit + core + memory-view)',
        mb(jsColdJit.maxRssMB),
        mb(nbCold.maxRssMB),
        ratio(jsColdJit.maxRssMB, nbCold.maxRssMB),
        `≤ 150 MB${mark(jsColdJit.maxRssMB === undefined ? undefined : jsColdJit.maxRssMB <= 150)}`,
        '640 MB',
      ],
      [
        '(b) first kernel after the context: jit + compile + launch + sync',
        ms(jsK.firstMs),
        ms(nbK.firstMs),
        ratio(jsK.firstMs, nbK.firstMs),
        `≤ 150 ms${mark(jsK.firstMs === undefined ? undefined : jsK.firstMs <= 150)}`,
        '0.8–1 s',
      ],
      [
        '(c) next kernel (another source), the same measure',
        ms(jsK.nextMs),
        ms(nbK.nextMs),
        ratio(jsK.nextMs, nbK.nextMs),
        `≤ 10 ms${mark(jsK.nextMs === undefined ? undefined : jsK.nextMs <= 10)}`,
        '77 ms',
      ],
    ],
  ),
);
say();
say(
  "Phases of (a), median ms from spawn (parent's clock) to: imports done, context + arrays ready, first kernel launched and synced, result copied back and checked; wall is spawn → exit.",
);
say();
const phaseRow = (name, r) => [
  name,
  ...['imported', 'context', 'launched', 'checked'].map((k) => fmt(r.phasesMs?.[k], 0)),
  fmt(r.wallMs, 0),
];
say(
  table(
    ['process', 'imported', 'context', 'launched', 'checked', 'exit (wall)'],
    [
      phaseRow('cuda-js (import cuda-js)', jsCold),
      phaseRow('cuda-js (import @cuda-js/jit + core + memory-view)', jsColdJit),
      phaseRow('numba-cuda', nbCold),
    ],
  ),
);
for (const [name, r] of Object.entries(c)) {
  if (r.value === null) notes.push(`not measured: ${name}: ${r.reason}`);
  else if (r.failed) notes.push(`${name}: ${r.failed} of ${r.runs.length} runs failed: ${(r.errors ?? []).join('; ')}`);
}
if (compile.error) notes.push(`compile latency: ${compile.error}`);

// ---- 2. launch overhead
const launchDir = join(dir, 'launch');
const lsamples = {}; // form -> variant -> [µs]
let launchIterations;
let numbaIterations;
const add = (form, variant, v) => {
  if (typeof v === 'number') ((lsamples[form] ??= {})[variant] ??= []).push(v);
};
const VARIANTS = ['i32 bound', 'y.length'];
let rounds = 0;
if (existsSync(launchDir)) {
  for (const file of readdirSync(launchDir).sort()) {
    const path = join(launchDir, file);
    let m;
    if ((m = /^raw-(\d+)-(k|k_len)\.txt$/.exec(file))) {
      const v = Number(readFileSync(path, 'utf8').trim().split('\n').at(-1));
      if (Number.isFinite(v) && v > 0)
        add('raw C cuLaunchKernel (nvcc cubin)', m[2] === 'k' ? 'i32 bound' : 'y.length', v);
      else notes.push(`raw C launch ${file}: ${readJson(path).error ?? 'no number printed'}`);
      rounds = Math.max(rounds, Number(m[1]));
    } else if ((m = /^node-(\d+)\.json$/.exec(file))) {
      const r = readJson(path);
      launchIterations ??= r.iterations;
      if (r.error) notes.push(`cuda-js launch, round ${m[1]}: ${r.error}`);
      for (const [name, why] of Object.entries(r.errors ?? {}))
        notes.push(`cuda-js launch, round ${m[1]}: ${name}: ${why}`);
      for (const [name, v] of Object.entries(r.results ?? {})) {
        const cut = name.lastIndexOf(', ');
        add(name.slice(0, cut), name.slice(cut + 2), v);
      }
    } else if ((m = /^numba-(\d+)\.json$/.exec(file))) {
      const r = readJson(path);
      numbaIterations ??= r.iterations;
      if (r.error) {
        notes.push(`numba-cuda launch, round ${m[1]}: ${r.error}`);
        numbaLaunchErrors[`round ${m[1]}`] = r.error;
      }
      for (const [variant, v] of Object.entries(r.results ?? {})) add('numba-cuda (cuda.to_device arrays)', variant, v);
    }
  }
}
const raw = lsamples['raw C cuLaunchKernel (nvcc cubin)'] ?? {};
const launchMedians = {};
const launchRows = [];
const order = Object.keys(lsamples).sort((p, q) => rank(p) - rank(q));
function rank(form) {
  return form.startsWith('jit, views')
    ? 0
    : form.startsWith('jit, frozen')
      ? 1
      : form.startsWith('jit')
        ? 2
        : form.startsWith('core')
          ? 3
          : form.startsWith('numba')
            ? 4
            : 5;
}
for (const form of order) {
  launchMedians[form] = {};
  launchRows.push([
    form,
    ...VARIANTS.map((variant) => {
      const xs = lsamples[form][variant];
      if (!xs) return '—';
      const m = median(xs);
      launchMedians[form][variant] = m;
      const base = raw[variant] ? median(raw[variant]) : undefined;
      const goal = form.startsWith('jit') && base ? mark(m / base <= 1.15) : '';
      return base ? `${m.toFixed(2)} (${(m / base).toFixed(2)}×)${goal}` : m.toFixed(2);
    }),
  ]);
}
say();
say(
  `### 2. Launch overhead: a JIT kernel with two arrays and a scalar (grid 1, block 32; median of ${rounds} interleaved rounds of ${launchIterations ?? '?'} launches, numba-cuda ${numbaIterations ?? '?'})`,
);
say();
say(
  'µs per launch (× raw C of the same parameter list). "i32 bound": `(a, x, y, n)`, `i < n` with n = i32(0), parameters (float, float*, float*, int); "y.length": `(a, x, y)`, `i < y.length` on 32 elements, parameters (float, float*, float*, i64). Goal for the JIT rows: ≤ 1.15× raw C.',
);
say();
say(table(['form', 'i32 bound: µs (× raw C)', 'y.length: µs (× raw C)'], launchRows));

// ---- 3. bandwidth
const bwNode = readJson(join(dir, 'bandwidth-node.json'));
const bwNumba = readJson(join(dir, 'bandwidth-numba.json'));
const bw = {
  'cuda-js jit': bwNode.results?.['cuda-js jit'],
  'nvcc (CUDA C++)': bwNode.results?.['nvcc (CUDA C++)'],
  'numba-cuda': bwNumba.error ? undefined : bwNumba,
};
for (const [name, why] of Object.entries(bwNode.errors ?? {})) notes.push(`bandwidth: ${name}: ${why}`);
if (bwNode.error) notes.push(`bandwidth (cuda-js): ${bwNode.error}`);
if (bwNumba.error) notes.push(`bandwidth (numba-cuda): ${bwNumba.error}`);
if (bwNumba.ok === false) notes.push('bandwidth (numba-cuda): wrong result');
const nv = bw['nvcc (CUDA C++)']?.gbPerS;
const nb = bw['numba-cuda']?.gbPerS;
const jitBw = bw['cuda-js jit']?.gbPerS;
const bwRows = Object.entries(bw).map(([name, r]) => [
  name,
  fmt(r?.gbPerS, 0),
  fmt(r?.ms, 4),
  ratio(r?.gbPerS, nv),
  ratio(r?.gbPerS, nb),
  name === 'cuda-js jit'
    ? `≥ both${mark(jitBw === undefined || nv === undefined || nb === undefined ? undefined : jitBw >= nv && jitBw >= nb)}`
    : '',
]);
say();
say(
  `### 3. axpy on ${bwNode.n ?? bwNumba.n ?? '?'} float32 (12 bytes an element: read x, read y, write y), cuEvent-timed, median of ${bwNode.reps ?? '?'} launches, grid ${bwNode.grid ?? '?'} × block ${bwNode.block ?? '?'}`,
);
say();
say(table(['kernel', 'GB/s', 'ms', '× nvcc', '× numba-cuda', 'goal'], bwRows));
say();
say('Earlier on this host: 3408 and 3439 GB/s for the anchors.');

// ---- 4. simulator
const simNode = readJson(join(dir, 'simulator-node.json'));
const simNumba = readJson(join(dir, 'simulator-numba.json'));
if (simNode.error) notes.push(`simulator (cuda-js): ${simNode.error}`);
if (simNumba.error) notes.push(`simulator (numba-cuda): ${simNumba.error}`);
if (simNumba.ok === false) notes.push('simulator (numba-cuda): wrong result');
say();
say('### 4. Simulator: axpy on host float32 arrays, block 256, µs per thread (median of the launches after the first)');
say();
say(
  table(
    ['simulator', 'threads', 'µs / thread', 'first launch µs / thread', '× numba', 'goal', 'numba earlier'],
    [
      [
        "cuda-js jit { target: 'simulator' }",
        fmt(simNode.n, 0),
        fmt(simNode.usPerThread, 4),
        fmt(simNode.firstUsPerThread, 4),
        ratio(simNode.usPerThread, simNumba.usPerThread),
        `≤ 0.1${mark(simNode.usPerThread === undefined ? undefined : simNode.usPerThread <= 0.1)}`,
        '',
      ],
      ['numba-cuda NUMBA_ENABLE_CUDASIM=1', fmt(simNumba.n, 0), fmt(simNumba.usPerThread, 2), '', '', '', '86'],
    ],
  ),
);

if (notes.length) {
  say();
  say('Notes:');
  for (const n of notes) say(`- ${n}`);
}
const markdown = lines.join('\n');
console.log(markdown);

const launchOut = { iterations: launchIterations, numbaIterations, rounds, samples: lsamples, medians: launchMedians };
if (!lsamples['numba-cuda (cuda.to_device arrays)'])
  launchOut.medians['numba-cuda (cuda.to_device arrays)'] = {
    value: null,
    reason: Object.values(numbaLaunchErrors)[0] ?? 'not run',
  };
const summary = {
  host,
  goals: {
    coldStartS: 0.6,
    coldStartMaxRssMB: 150,
    firstKernelMs: 150,
    nextKernelMs: 10,
    launchRatioToRawC: 1.15,
    bandwidth: 'at least nvcc and numba-cuda',
    simulatorUsPerThread: 0.1,
  },
  compileLatency: compile,
  launch: launchOut,
  bandwidth: { node: orNull(bwNode), numba: orNull(bwNumba) },
  simulator: { node: orNull(simNode), numba: orNull(simNumba) },
  notes,
  markdown,
};
writeFileSync(jsonOut, JSON.stringify(summary, null, 2) + '\n');
console.log(`\n(results written to ${jsonOut})`);
