// The report of run-arrays.sh: one table of the median µs per launch of each
// form and kernel over the interleaved rounds, with its ratio to the raw C
// loop on the same kernel, then one line per column saying whether cuda-js's
// best form and its typical form (Buffers and a fresh `{ grid, block }` per
// call, as the README writes a launch) are within the goal (≤ 1.10× raw C) and
// ahead of cuda.core.
// usage: node report.mjs <results.json>
import { readFileSync } from 'node:fs';
import Table from 'cli-table3';
import { COLUMNS } from './kernels.mjs';

const GOAL = 1.1;
const RAW = 'raw C cuLaunchKernel';
const TYPICAL = 'core launch, Buffer, plain-object config';
const CUDA_CORE = 'cuda.core (pointers)';

const { rounds, launches, pythonLaunches, info, samples, errors } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const medians = Object.fromEntries(
  Object.entries(samples).map(([form, byKernel]) => [
    form,
    Object.fromEntries(Object.entries(byKernel).map(([k, xs]) => [k, median(xs)])),
  ]),
);
const ratio = (form, kernel) => {
  const m = medians[form]?.[kernel];
  const base = medians[RAW]?.[kernel];
  return m === undefined || base === undefined ? undefined : m / base;
};

const table = new Table({
  head: ['form', ...COLUMNS.map((c) => `${c.header}: µs (× raw C)`)],
  style: { head: [], border: [] },
});
const order = (form) => (form === RAW ? 2 : form.startsWith('bindings') || form.startsWith('core') ? 0 : 1);
for (const form of Object.keys(medians).sort((a, b) => order(a) - order(b))) {
  table.push([
    form,
    ...COLUMNS.map(({ kernel }) => {
      const m = medians[form][kernel];
      const r = ratio(form, kernel);
      return m === undefined ? '-' : r === undefined ? m.toFixed(2) : `${m.toFixed(2)} (${r.toFixed(2)}×)`;
    }),
  ]);
}
console.log(`device: ${info?.device ?? '?'}; node ${info?.node ?? '?'}`);
console.log(
  `launch of an empty kernel, µs per launch: median of ${rounds} interleaved rounds (after one to warm up) of ${launches} launches a batch (${pythonLaunches} for Python), two C batches per round and kernel`,
);
console.log(table.toString());

const coreForms = Object.keys(medians).filter((f) => f.startsWith('core launch'));
const yes = (b) => (b ? 'yes' : 'no');
for (const { kernel, header } of COLUMNS) {
  const best = coreForms
    .map((form) => ({ form, r: ratio(form, kernel) }))
    .filter((x) => x.r !== undefined)
    .sort((a, b) => a.r - b.r)[0];
  const typical = ratio(TYPICAL, kernel);
  const anchor = ratio(CUDA_CORE, kernel);
  if (best === undefined) continue;
  const ahead = (r) =>
    anchor === undefined ? 'cuda.core not measured' : `ahead of cuda.core (${anchor.toFixed(2)}×): ${yes(r < anchor)}`;
  const typicalText =
    typical === undefined
      ? 'typical form not measured'
      : `typical (${TYPICAL}) ${typical.toFixed(2)}×, ≤ ${GOAL.toFixed(2)}×: ${yes(typical <= GOAL)}, ${ahead(typical)}`;
  console.log(
    `${header}: best (${best.form}) ${best.r.toFixed(2)}×, ≤ ${GOAL.toFixed(2)}×: ${yes(best.r <= GOAL)}, ${ahead(best.r)}; ${typicalText}`,
  );
}
for (const [anchor, why] of Object.entries(errors ?? {})) console.log(`not measured: ${anchor}: ${why}`);
