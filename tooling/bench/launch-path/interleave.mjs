// Runs the sides of the launch-path benchmark in turns, in short batches, so
// that the machine's noise falls on all of them alike: per round and kernel a
// raw C batch, a batch of each cuda-js form (path.mjs, one Node process),
// another raw C batch, a batch of each Python anchor (../launch/anchors.py:
// cuda.core, CuPy, numba-cuda where python3 has them). The first round warms
// up and is dropped; report.mjs takes the medians.
// usage: node interleave.mjs <raw C binary> <cubin> <kernel source .cu> <rounds> <launches per batch> <results.json>
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { COLUMNS } from '../launch/kernels.mjs';

const [rawC, cubin, source, roundsText, launchesText, out] = process.argv.slice(2);
const rounds = Number(roundsText);
const launches = Number(launchesText);
const here = import.meta.dirname;
const PYTHON_SHARE = 10; // Python's loops cost more per launch: a tenth of the batch keeps its turns as short

/** A child that answers one line per request. */
function serve(command, args, label) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', (error) => resolve(error.message));
  });
  return {
    async next() {
      const { value, done } = await lines.next();
      if (done) throw new Error(`${label} exited (code ${await exited})`);
      return value;
    },
    async ask(request) {
      child.stdin.write(`${request}\n`);
      const answer = await this.next();
      if (answer === 'skip') return undefined;
      const us = Number(answer);
      if (!Number.isFinite(us)) throw new Error(`${label}: ${answer}`);
      return us;
    },
    close: () => child.stdin.end(),
  };
}

const errors = {};
const c = serve(rawC, [cubin], 'the raw C loop');
if ((await c.next()) !== 'ready') throw new Error('the raw C loop did not start');
const node = serve(process.execPath, [join(here, 'path.mjs'), cubin], 'the cuda-js side');
const ready = JSON.parse(await node.next());
let python;
let pythonForms = [];
try {
  python = serve(
    process.env.PYTHON ?? 'python3',
    [join(here, '..', 'launch', 'anchors.py'), cubin, source],
    'the Python anchors',
  );
  const answer = JSON.parse(await python.next());
  pythonForms = answer.forms;
  Object.assign(errors, answer.errors);
} catch (error) {
  errors['Python anchors'] = String(error?.message ?? error);
  python = undefined;
}

const RAW = 'raw C cuLaunchKernel';
const samples = {};
const record = (form, kernel, us, round) => {
  if (round > 0 && us !== undefined) ((samples[form] ??= {})[kernel] ??= []).push(us);
};
for (let round = 0; round <= rounds; round++) {
  for (const { kernel } of COLUMNS) {
    record(RAW, kernel, await c.ask(`${kernel} ${launches}`), round);
    for (const [i, form] of ready.forms.entries())
      record(form, kernel, await node.ask(`${i} ${kernel} ${launches}`), round);
    record(RAW, kernel, await c.ask(`${kernel} ${launches}`), round);
    for (const [i, form] of pythonForms.entries()) {
      try {
        record(
          form,
          kernel,
          await python.ask(`${i} ${kernel} ${Math.max(1, Math.round(launches / PYTHON_SHARE))}`),
          round,
        );
      } catch (error) {
        errors[form] = String(error?.message ?? error);
        pythonForms = [];
        break;
      }
    }
  }
  process.stderr.write(`round ${round}/${rounds}${round === 0 ? ' (warm-up, dropped)' : ''}\n`);
}
c.close();
node.close();
python?.close();
writeFileSync(
  out,
  JSON.stringify({ rounds, launches, info: ready.info, forms: ready.forms, samples, errors }, null, 1),
);
