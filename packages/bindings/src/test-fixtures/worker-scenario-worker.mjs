// The Worker side of worker-scenarios.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { round } from './worker-round.mjs';

const b = await import(workerData.dist);
const { native } = await import(workerData.native);
if (workerData.mode === 'once') {
  parentPort.postMessage({ first: round(b) });
} else if (workerData.mode === 'loop') {
  const first = round(b);
  parentPort.postMessage({ started: true });
  let rounds = 0;
  let same = true;
  const until = Date.now() + workerData.ms;
  // at least one round however late this thread gets the CPU (the test expects rounds > 0)
  do {
    if (round(b) !== first) same = false;
    rounds++;
    if (rounds % 50 === 0) await new Promise((r) => setImmediate(r));
  } while (Date.now() < until);
  parentPort.postMessage({ first, rounds, same });
} else if (workerData.mode === 'waiting') {
  for (let i = 0; i < 4; i++) native.__waitThreadSleepForTests(300).then(() => console.log('settled after terminate'));
  native.__releaseThreadSleepForTests(300).then(() => console.log('settled after terminate'));
  native.__nvJitLinkThreadIdForTests(true, 300).then(() => console.log('settled after terminate'));
  parentPort.postMessage({ started: true });
}
