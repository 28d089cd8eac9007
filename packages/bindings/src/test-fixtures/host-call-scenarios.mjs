// Host calls (cuLaunchHostFunc, cuStreamAddCallback, launchBlockingHostFunc,
// graph host functions) that outlive the Worker that made them, run as a child
// process by host-function-lifetime.test.ts, so that a use after free is a
// failed exit status there. The addon's test thread plays the driver's, so no
// GPU is needed. Prints one JSON line with what it saw.
import { AsyncLocalStorage } from 'node:async_hooks';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const { native } = await import(join(import.meta.dirname, '..', '..', 'dist', 'native.js'));
const counts = () => native.__hostCallCountsForTests();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` (or gives up after `ms`): what a test waits for is an event, never a time. */
async function until(done, ms = 30_000) {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(5);
}

/** Waits until no host-call record is left and no driver thread waits (or gives up after `ms`). */
async function settled(before, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const now = counts();
    if (now.live === before.live && now.waiting === 0) return now;
    await sleep(10);
  }
  return counts();
}

function spawn(options) {
  const ran = new SharedArrayBuffer(4);
  const worker = new Worker(new URL('./host-call-worker.mjs', import.meta.url), {
    workerData: {
      native: join(import.meta.dirname, '..', '..', 'dist', 'native.js'),
      ran,
      copies: 5,
      launches: 3,
      delays: [0],
      exitAtOnce: false,
      ...options,
    },
  });
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const started = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, exited, started, ran: new Int32Array(ran) };
}

/**
 * A call of each form on the main thread, after the Workers: each runs, with its arguments, in the async
 * context in which it was enqueued (an AsyncLocalStorage store set there).
 */
async function mainThreadCalls() {
  const keepAlive = setInterval(() => {}, 1000); // graph host functions do not hold the event loop; stream ones do
  const store = new AsyncLocalStorage();
  const inContext = (name, enqueue) =>
    store.run(
      `${name} context`,
      () => new Promise((resolve) => enqueue((...args) => resolve([store.getStore(), ...args]))),
    );
  const seen = await Promise.all([
    inContext('hostFunc', (done) => native.__hostCallForTests('hostFunc', () => done(), 5)),
    inContext('streamCallback', (done) =>
      native.__hostCallForTests('streamCallback', (stream, status) => done(String(stream), status), 5),
    ),
    inContext('blocking', (done) => native.__hostCallForTests('blocking', () => done(), 5)),
    inContext('graph', (done) => {
      let n = 0;
      native.__hostCallForTests('graph', () => ++n === 3 && done(n), 5, 3);
    }),
  ]);
  clearInterval(keepAlive);
  return seen;
}

const scenario = process.argv[2];
const before = counts();
if (scenario === 'terminated-before-the-driver-calls') {
  // every call is still with the "driver" when the Worker ends: each is dropped there, once
  // the "driver" holds each call 3 s: long beside a loaded machine's message and terminate, so none has run yet
  const w = spawn({ delays: [3000] });
  await w.started;
  await w.worker.terminate();
  const after = await settled(before);
  console.log(
    JSON.stringify({ before, after, ranInWorker: w.ran[0], main: await mainThreadCalls(), end: await settled(before) }),
  );
} else if (scenario === 'terminated-at-any-moment') {
  // 20 Workers ended while their calls are posted, queued, running or done
  const totals = { ran: 0 };
  for (let round = 0; round < 20; round++) {
    const w = spawn({ copies: 2, launches: 2, delays: [0, 1, 3, 7, 15] });
    await w.started;
    await sleep(round % 6);
    // the last Worker runs some of its calls first, however slow the machine: the test expects ran > 0
    if (round === 19) await until(() => totals.ran + w.ran[0] > 0);
    await w.worker.terminate();
    totals.ran += w.ran[0];
  }
  const after = await settled(before);
  console.log(JSON.stringify({ before, after, ...totals, main: await mainThreadCalls(), end: await settled(before) }));
} else if (scenario === 'worker-exits-itself') {
  // process.exit() in the Worker right after it enqueued: the same teardown, from inside (no JS runs there
  // after it; a call that reaches the Worker's queue during its teardown is freed there without JS)
  const w = spawn({ delays: [0, 50], exitAtOnce: true });
  await w.exited;
  const after = await settled(before);
  console.log(
    JSON.stringify({ before, after, ranInWorker: w.ran[0], main: await mainThreadCalls(), end: await settled(before) }),
  );
} else if (scenario === 'throwing-callbacks') {
  // A throw from any form is the thread's 'uncaughtException'; `this` is undefined in a strict callback.
  const seen = [];
  process.on('uncaughtException', (e) => seen.push(e.message));
  native.__hostCallForTests(
    'hostFunc',
    () => {
      throw new Error('hostFunc');
    },
    1,
  );
  native.__hostCallForTests(
    'streamCallback',
    () => {
      throw new Error('streamCallback');
    },
    1,
  );
  native.__hostCallForTests(
    'blocking',
    () => {
      throw new Error('blocking');
    },
    1,
  );
  native.__hostCallForTests(
    'graph',
    () => {
      throw new Error('graph');
    },
    1,
    2,
  );
  const self = await new Promise((resolve) =>
    native.__hostCallForTests(
      'hostFunc',
      function () {
        resolve(typeof this);
      },
      50,
    ),
  );
  await until(() => seen.length >= 5); // the four throwing forms, the graph one twice
  console.log(JSON.stringify({ uncaught: seen.sort(), self, end: await settled(before) }));
} else if (scenario === 'exit-while-blocking') {
  // The main thread's blocking call is with the JS thread when the process exits: exit releases its driver thread.
  native.__hostCallForTests('blocking', () => console.log('never'), 0);
  const giveUp = Date.now() + 30_000;
  while (counts().waiting === 0 && Date.now() < giveUp); // the "driver" posts and waits meanwhile; JS never gets to run it
  console.log(JSON.stringify({ waiting: counts().waiting }));
  process.exit(0);
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
