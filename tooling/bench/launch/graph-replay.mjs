#!/usr/bin/env node
// Graph replay against stream launches, in one run: µs per kernel of a graph of
// KERNELS kernel nodes (captured with core's GraphBuilder, launched with one
// Graph.launch) against the same KERNELS kernels launched one by one on a stream
// with core's launch(); each measured from the first submission to the end of
// a stream synchronization, and for the host's submission alone. Rounds
// alternate the two forms; each figure is the median of its rounds. Beside it,
// graph-replay.py does the same with cuda.core's GraphBuilder where python3 has
// cuda.core (reported as not measured where it has not).
//   node tooling/bench/launch/graph-replay.mjs [--kernels 1000] [--rounds 30]
// Needs a GPU and a built checkout (packages/*/dist and the bindings addon).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const KERNELS = arg('kernels', 1000);
const ROUNDS = arg('rounds', 30);
const WARMUP_ROUNDS = 3;

const { driver, nvrtc } = await import(pathToFileURL(join(root, 'packages', 'bindings', 'dist', 'index.js')).href);
const { Device, LaunchConfig, launch } = await import(
  pathToFileURL(join(root, 'packages', 'core', 'dist', 'index.js')).href
);

// The kernel of every node and launch: a tiny body, so that the figures are launch and scheduling costs.
const SOURCE = 'extern "C" __global__ void tick(int* x, int n) { if (n < 0) x[threadIdx.x] = n; }\n';

const device = Device.get(0).setCurrent();
const program = nvrtc.nvrtcCreateProgram(SOURCE, 'tick.cu', [], []);
let cubin;
try {
  nvrtc.nvrtcCompileProgram(program, [`--gpu-architecture=${device.arch}`]);
  cubin = nvrtc.nvrtcGetCUBIN(program);
} finally {
  nvrtc.nvrtcDestroyProgram(program);
}
const library = driver.cuLibraryLoadData(cubin);
const kernel = { handle: driver.cuLibraryGetKernel(library, 'tick'), name: 'tick' };
const stream = device.createStream({ nonBlocking: true });
const x = device.allocate(32 * 4, { stream });
const config = new LaunchConfig({ grid: 1, block: 32 });
const N = 32;

const now = () => process.hrtime.bigint();
const us = (t) => Number(t) / 1000;

// capture and instantiation, once
const t0 = now();
const builder = device.createGraphBuilder().beginBuilding();
for (let i = 0; i < KERNELS; i++) launch(builder, config, kernel, x, N);
builder.endBuilding();
const t1 = now();
const graph = builder.complete();
const t2 = now();
graph.upload(stream);
stream.synchronize();

function streamRound() {
  const start = now();
  for (let i = 0; i < KERNELS; i++) launch(stream, config, kernel, x, N);
  const submitted = now();
  stream.synchronize();
  const end = now();
  return { total: us(end - start) / KERNELS, submit: us(submitted - start) / KERNELS };
}
function graphRound() {
  const start = now();
  graph.launch(stream);
  const submitted = now();
  stream.synchronize();
  const end = now();
  return { total: us(end - start) / KERNELS, submit: us(submitted - start) / KERNELS };
}

const samples = { stream: [], graph: [] };
for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
  const s = streamRound();
  const g = graphRound();
  if (r >= WARMUP_ROUNDS) {
    samples.stream.push(s);
    samples.graph.push(g);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const summary = (rounds) => ({
  total: median(rounds.map((r) => r.total)),
  submit: median(rounds.map((r) => r.submit)),
});
const STREAM_FORM = `cuda-js: ${KERNELS} stream launches (core launch)`;
const results = {
  [STREAM_FORM]: summary(samples.stream),
  'cuda-js: graph replay (Graph.launch)': summary(samples.graph),
};

// cuda.core's graph of the same kernel, where python3 has cuda.core
let python = { results: {}, errors: { 'cuda.core': 'not measured: python3 was not run' } };
const work = mkdtempSync(join(tmpdir(), 'cuda-js-graph-replay-'));
try {
  const cubinPath = join(work, 'tick.cubin');
  writeFileSync(cubinPath, cubin);
  const run = spawnSync('python3', [join(here, 'graph-replay.py'), cubinPath, String(KERNELS), String(ROUNDS)], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (run.error)
    python = { results: {}, errors: { 'cuda.core': `not measured: python3 could not be run (${run.error.message})` } };
  else if (run.status !== 0)
    python = {
      results: {},
      errors: {
        'cuda.core': `not measured: graph-replay.py failed: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' / ')}`,
      },
    };
  else python = JSON.parse(run.stdout);
} finally {
  rmSync(work, { recursive: true, force: true });
}
Object.assign(results, python.results);

const info = {
  device: device.name,
  kernels: KERNELS,
  rounds: ROUNDS,
  captureMs: us(t1 - t0) / 1000,
  instantiateMs: us(t2 - t1) / 1000,
};
const base = results[STREAM_FORM].total;
console.log(
  `graph replay on ${info.device}: ${KERNELS} kernels, median of ${ROUNDS} rounds (capture ${info.captureMs.toFixed(2)} ms, instantiate ${info.instantiateMs.toFixed(2)} ms)`,
);
console.log(
  'form'.padEnd(48),
  'µs/kernel to sync'.padStart(18),
  'µs/kernel submit'.padStart(17),
  '× cuda-js stream'.padStart(17),
);
for (const [form, r] of Object.entries(results)) {
  console.log(
    form.padEnd(48),
    r.total.toFixed(3).padStart(18),
    r.submit.toFixed(3).padStart(17),
    (r.total / base).toFixed(2).padStart(17),
  );
}
for (const [form, reason] of Object.entries(python.errors ?? {})) console.log(form.padEnd(48), reason);
console.log(JSON.stringify({ info, results, errors: python.errors ?? {} }));

graph.close();
builder.close();
x.close({ stream });
stream.synchronize();
stream.close();
driver.cuLibraryUnload(library);
