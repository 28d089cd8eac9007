// The Worker side of host-call-scenarios.mjs: enqueues host calls of every form
// (driven by the addon's test thread, not a GPU), each bumping a shared counter
// when it runs, then says so, or ends itself at once.
import { parentPort, workerData } from 'node:worker_threads';

const { native } = await import(workerData.native);
const ran = new Int32Array(workerData.ran);
const bump = () => Atomics.add(ran, 0, 1);
const { copies, delays, launches } = workerData;
for (let i = 0; i < copies; i++) {
  const delay = delays[i % delays.length];
  native.__hostCallForTests('hostFunc', bump, delay);
  native.__hostCallForTests('streamCallback', bump, delay);
  native.__hostCallForTests('blocking', bump, delay);
  native.__hostCallForTests('graph', bump, delay, launches);
}
if (workerData.exitAtOnce) process.exit(0);
parentPort.postMessage({ started: true });
