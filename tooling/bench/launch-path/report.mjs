// The report of the launch-path benchmark: a markdown table of the median µs
// per launch (or per call) of every form and kernel, with its ratio to the raw
// C loop on the same kernel, then where the time of a launch goes on k1: the
// crossing, the packed launch's checks, cuda-js above a launch function, and
// the driver's own cost inside a process that runs JS (the native queue) next
// to the C program's.
// usage: node report.mjs <results.json>
import { readFileSync } from 'node:fs';
import { COLUMNS } from '../launch/kernels.mjs';

const RAW = 'raw C cuLaunchKernel';
const { rounds, launches, info, samples, errors } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
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
const m = (form, kernel) => medians[form]?.[kernel];
const cell = (form, kernel) => {
  const v = m(form, kernel);
  const base = m(RAW, kernel);
  if (v === undefined) return '-';
  return base === undefined ? v.toFixed(3) : `${v.toFixed(3)} (${(v / base).toFixed(3)}×)`;
};

console.log(`device: ${info?.device ?? '?'}; node ${info?.node ?? '?'} (V8 ${info?.v8 ?? '?'})`);
console.log(
  `µs per launch (per call for the probes): median of ${rounds} interleaved rounds of ${launches} a batch (a tenth for Python), after one to warm up\n`,
);
console.log(`| form | ${COLUMNS.map((c) => c.header).join(' | ')} |`);
console.log(`|---|${COLUMNS.map(() => '---').join('|')}|`);
const forms = [RAW, ...Object.keys(medians).filter((f) => f !== RAW)];
for (const form of forms) console.log(`| ${form} | ${COLUMNS.map(({ kernel }) => cell(form, kernel)).join(' | ')} |`);

const k = 'k1';
const get = (prefix) => {
  const form = Object.keys(medians).find((f) => f.startsWith(prefix));
  return form === undefined ? undefined : m(form, k);
};
const parts = [
  ['raw C cuLaunchKernel loop', m(RAW, k)],
  ['the driver in a tight native loop inside Node (native queue)', get('native queue submission')],
  ['an empty native call (the N-API crossing)', get('empty native call')],
  ["the packed launch's checks (type tag, buffer)", get('native call with a packed launch') - get('empty native call')],
  ['a generated binding that asks the driver (cuCtxGetCurrent)', get('driver.cuCtxGetCurrent')],
  ['launch function (crossing + cuCtxGetCurrent + cuLaunchKernel)', get('bindings launch function')],
  ['core LaunchPlan.run above the launch function', get('core LaunchPlan.run') - get('bindings launch function')],
  ['core launch() above LaunchPlan.run', get('core launch()') - get('core LaunchPlan.run')],
  ['JIT launch above core launch()', get('JIT launch (') - get('core launch()')],
  ['core launchBatch per launch', get('core launchBatch')],
  ['JIT launch in a batch per launch', get('JIT launch in a batch')],
];
console.log(`\nwhere the time goes on ${k} (1 array + int), µs:\n`);
console.log('| step | µs |');
console.log('|---|---|');
for (const [what, us] of parts)
  console.log(`| ${what} | ${us === undefined || Number.isNaN(us) ? '-' : us.toFixed(3)} |`);
const queue = get('native queue submission');
if (queue !== undefined && m(RAW, k) !== undefined) {
  console.log(
    `\nthe driver inside Node vs in the C program: ${(queue / m(RAW, k)).toFixed(3)}× (above 1: cache and TLB effects of sharing the process with V8, not cuda-js code)`,
  );
}
for (const [anchor, why] of Object.entries(errors ?? {})) console.log(`not measured: ${anchor}: ${why}`);
