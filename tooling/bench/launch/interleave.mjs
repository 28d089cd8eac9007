// Runs the three sides of the launch benchmark side by side and takes turns
// between them in short batches, so that the machine's noise falls on all of
// them alike: the raw C loop, the cuda-js forms (arrays.mjs, one Node process)
// and the Python anchors (anchors.py, one python3 process), each started once
// and asked for one batch at a time. Per round and per kernel: a C batch, a
// batch of each cuda-js form, another C batch, a batch of each Python form.
// The first round warms up and is dropped; report.mjs takes the medians.
// usage: node interleave.mjs <raw C binary> <cubin> <kernel source .cu> <rounds> <launches per batch> <results.json>
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { COLUMNS } from './kernels.mjs';

const [rawC, cubin, source, roundsText, launchesText, out] = process.argv.slice(2);
const rounds = Number(roundsText);
const launches = Number(launchesText);
const here = import.meta.dirname;
// Python's loops cost more per launch: a tenth of the batch keeps its turns as short
const PYTHON_SHARE = 10;

/** A child that answers one line per request. */
function serve(command, args, label) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', (error) => resolve(error.message)); // not started (python3 missing, say)
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
      const us = Number(answer);
      if (!Number.isFinite(us)) throw new Error(`${label}: ${answer}`);
      return us;
    },
    close() {
      child.stdin.end();
    },
  };
}

const errors = {};
const c = serve(rawC, [cubin], 'the raw C loop');
if ((await c.next()) !== 'ready') throw new Error('the raw C loop did not start');
const node = serve(process.execPath, [join(here, 'arrays.mjs'), cubin], 'the cuda-js side');
const nodeReady = JSON.parse(await node.next());
let python;
let pythonForms = [];
try {
  python = serve('python3', [join(here, 'anchors.py'), cubin, source], 'the Python anchors');
  const ready = JSON.parse(await python.next());
  pythonForms = ready.forms;
  Object.assign(errors, ready.errors);
} catch (error) {
  errors['Python anchors'] = String(error?.message ?? error);
  python = undefined;
}

const RAW = 'raw C cuLaunchKernel';
const samples = {}; // form -> kernel -> [µs]
const record = (form, kernel, us, round) => {
  if (round > 0) ((samples[form] ??= {})[kernel] ??= []).push(us);
};
for (let round = 0; round <= rounds; round++) {
  for (const { kernel } of COLUMNS) {
    record(RAW, kernel, await c.ask(`${kernel} ${launches}`), round);
    for (const [i, form] of nodeReady.forms.entries())
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
  JSON.stringify(
    { rounds, launches, pythonLaunches: Math.round(launches / PYTHON_SHARE), info: nodeReady.info, samples, errors },
    null,
    1,
  ),
);
