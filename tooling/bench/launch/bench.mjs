#!/usr/bin/env node
// Launch overhead of @cuda-js/bindings' fast path against a raw C loop of
// cuLaunchKernel (libcuda by dlopen), both launching empty_kernel(int, float*)
// on the legacy default stream. The C program runs beside this one and the two
// take turns, batch after batch, so both see the same machine state; the
// figure for each is the median of its batches.
//   node tooling/bench/launch/bench.mjs [--launches 20000] [--rounds 15]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LAUNCHES = arg('launches', 20000);
const ROUNDS = arg('rounds', 15);
const WARMUP_ROUNDS = 2;

const { driver, loadedLibraries } = await import(
  pathToFileURL(join(root, 'packages', 'bindings', 'dist', 'index.js')).href
);
const { findLibrary } = await import(pathToFileURL(join(root, 'packages', 'pathfinder', 'dist', 'index.js')).href);

const ptxPath = join(here, 'empty-kernel.ptx');
const libcuda = findLibrary('cuda').path;

// Build the C anchor now, with gcc.
const work = mkdtempSync(join(tmpdir(), 'cuda-js-launch-bench-'));
const exe = join(work, 'raw-launch');
execFileSync('gcc', ['-O2', '-o', exe, join(here, 'raw-launch.c'), '-ldl'], { stdio: 'inherit' });

// The C side: started once, then asked for one batch at a time.
const c = spawn(exe, [libcuda, ptxPath], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: c.stdout })[Symbol.asyncIterator]();
const nextLine = async () => {
  const { value, done } = await lines.next();
  if (done) throw new Error('the C benchmark exited early');
  return value;
};
if ((await nextLine()) !== 'ready') throw new Error('the C benchmark did not start');
async function cBatch() {
  c.stdin.write(`go ${LAUNCHES}\n`);
  return Number(await nextLine());
}

// The JS side: the same kernel, the same two arguments, through the fast path.
driver.cuInit(0);
const dev = driver.cuDeviceGet(0);
driver.cuCtxSetCurrent(driver.cuDevicePrimaryCtxRetain(dev));
const mod = driver.cuModuleLoadData(readFileSync(ptxPath, 'utf8'));
const f = driver.cuModuleGetFunction(mod, 'empty_kernel');
const args = new ArrayBuffer(16);
new DataView(args).setInt32(0, 1, true); // n = 1; p = NULL at offset 8
const params = driver.createKernelParams(args, [0, 8], [4, 8]);
function jsBatch() {
  const launch = driver.cuLaunchKernel;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < LAUNCHES; i++) launch(f, 1, 1, 1, 1, 1, 1, 0, 0n, params);
  driver.cuCtxSynchronize();
  return Number(process.hrtime.bigint() - t0) / 1000 / LAUNCHES;
}

const cTimes = [];
const jsTimes = [];
for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
  const cUs = await cBatch();
  const jsUs = jsBatch();
  if (r >= WARMUP_ROUNDS) {
    cTimes.push(cUs);
    jsTimes.push(jsUs);
  }
}
c.stdin.end();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cMedian = median(cTimes);
const jsMedian = median(jsTimes);
const name = driver.cuDeviceGetName(dev);
const version = driver.cuDriverGetVersion();
console.log(
  `device: ${name}; driver CUDA ${Math.floor(version / 1000)}.${(version % 1000) / 10}; node ${process.version}`,
);
console.log(
  `libraries: ${loadedLibraries()
    .map((l) => `${l.name} ${l.path}`)
    .join(', ')}`,
);
console.log(
  `${ROUNDS} interleaved rounds of ${LAUNCHES} launches of an empty kernel with two arguments (median per round):`,
);
console.log(`  raw C cuLaunchKernel loop:          ${cMedian.toFixed(3)} µs/launch`);
console.log(`  @cuda-js/bindings cuLaunchKernel:   ${jsMedian.toFixed(3)} µs/launch`);
console.log(`  ratio (bindings / C):               ${(jsMedian / cMedian).toFixed(3)}  (goal ≤ 1.10)`);
driver.cuModuleUnload(mod);
