// Scenarios of the bindings under worker_threads, run as a child process by
// worker-threads.test.ts (a crash is then a failed exit status, not a dead
// test runner). Prints one JSON line with what it saw.
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { round } from './worker-round.mjs';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'index.js');
const nativePath = join(import.meta.dirname, '..', '..', 'dist', 'native.js');
const exits = new WeakMap();
const spawn = (mode, ms = 0) => {
  const w = new Worker(new URL('./worker-scenario-worker.mjs', import.meta.url), {
    workerData: { dist, native: nativePath, mode, ms },
  });
  exits.set(w, new Promise((resolve) => w.once('exit', resolve))); // from the start, so that no exit is missed
  return w;
};
const message = (w, pick = () => true) =>
  new Promise((resolve, reject) => {
    w.on('message', (m) => pick(m) && resolve(m));
    w.once('error', reject);
  });
const exited = (w) => exits.get(w);

const scenario = process.argv[2];
if (scenario === 'worker-first') {
  // The Worker imports the bindings first, makes its calls and ends; only then does the main thread.
  const w = spawn('once');
  const { first } = await message(w);
  await exited(w);
  const b = await import(dist);
  console.log(JSON.stringify({ inWorker: first, main: round(b), again: round(b) }));
} else if (scenario === 'concurrent') {
  const b = await import(dist);
  const expected = round(b);
  const keep = [spawn('loop', 300), spawn('loop', 300)];
  const doomed = [spawn('loop', 5000), spawn('loop', 5000)];
  const results = keep.map((w) => message(w, (m) => !m.started));
  await Promise.all([...keep, ...doomed].map((w) => message(w, (m) => m.started)));
  let mainRounds = 0;
  let mainSame = true;
  const until = Date.now() + 150;
  // at least one round however late this thread gets the CPU (the test expects mainRounds > 0)
  do {
    if (round(b) !== expected) mainSame = false;
    mainRounds++;
    if (mainRounds % 50 === 0) await new Promise((r) => setImmediate(r));
  } while (Date.now() < until);
  await Promise.all(doomed.map((w) => w.terminate())); // mid-use
  const kept = await Promise.all(results);
  await Promise.all(keep.map(exited));
  const after = round(b);
  const late = spawn('once');
  const { first: lateFirst } = await message(late);
  console.log(JSON.stringify({ expected, mainRounds, mainSame, kept, after, late: lateFirst }));
} else if (scenario === 'terminate-while-waiting') {
  const { native } = await import(nativePath);
  const w = spawn('waiting');
  await message(w, (m) => m.started);
  await w.terminate();
  const start = Date.now();
  await Promise.all([native.__waitThreadSleepForTests(20), native.__releaseThreadSleepForTests(20)]);
  const b = await import(dist);
  console.log(JSON.stringify({ waited: Date.now() - start, main: round(b) }));
  setTimeout(() => {}, 500); // outlive the Worker's jobs: settling them must find the Worker gone, and do nothing
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
