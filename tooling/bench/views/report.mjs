#!/usr/bin/env node
// Prints the views benchmark as one markdown table: cuda-js (views.mjs) beside
// cuda.core (cuda_core_views.py), with ratios. Arguments: the two JSON outputs
// (the second may be empty, or a note saying why Python was not run).
import os from 'node:os';

const [nodeJson, pyJson = ''] = process.argv.slice(2);
const node = JSON.parse(nodeJson);
let py;
let pyNote = '';
try {
  py = pyJson.trim().startsWith('{') ? JSON.parse(pyJson) : undefined;
} catch {
  py = undefined;
}
if (py === undefined) pyNote = pyJson.trim() || 'python3 with cuda.core and cupy not found';

const ns = (x) => (x === undefined ? '—' : `${x.toFixed(0)} ns`);
const pairs = [
  ['DLPack protocol object', node.results[0], py?.results[0]],
  ['CUDA array interface object', node.results[1], py?.results[1]],
  ['Float32Array (host)', node.results[2], undefined],
  ['a view passed again', node.results[3], undefined],
];
console.log(
  `machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; ${node.runtime}${py ? `; ${py.runtime}` : ''}`,
);
console.log('');
console.log(
  '| view from | cuda-js `StridedMemoryView.fromAny` | cuda.core `StridedMemoryView` | cuda-js / cuda.core |',
);
console.log('|---|---:|---:|---:|');
for (const [what, ours, theirs] of pairs) {
  const ratio = theirs === undefined ? '—' : (ours.nsPerView / theirs.nsPerView).toFixed(2);
  const anchor =
    theirs === undefined ? '—' : `${ns(theirs.nsPerView)} (${theirs.name.replace('StridedMemoryView.', '')})`;
  console.log(`| ${what} | ${ns(ours.nsPerView)} | ${anchor} | ${ratio} |`);
}
console.log('');
console.log(
  'Median of 5 runs; goal for cuda-js: at most 200 ns per view.' +
    (pyNote ? ` cuda.core not measured: ${pyNote}.` : ''),
);
