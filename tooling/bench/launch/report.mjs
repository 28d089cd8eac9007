// Merges the rounds of run.sh into one table: the median µs per launch of each
// form, and its ratio to the raw C loop for the same number of arrays.
// usage: node report.mjs <results dir>
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Table from 'cli-table3';
import { ARRAY_COUNTS } from './kernels.mjs';

const dir = process.argv[2];
const samples = {}; // form -> count -> [µs]
const errors = {};
for (const file of readdirSync(dir).sort()) {
  const path = join(dir, file);
  if (file.startsWith('raw-')) {
    const [, count] = /^raw-\d+-(\d+)\.txt$/.exec(file) ?? [];
    if (count !== undefined) ((samples['raw C cuLaunchKernel'] ??= {})[count] ??= []).push(Number(readFileSync(path, 'utf8')));
  } else if (file.endsWith('.json')) {
    const { results = {}, errors: errs = {} } = JSON.parse(readFileSync(path, 'utf8'));
    Object.assign(errors, errs);
    for (const [form, byCount] of Object.entries(results)) {
      for (const [count, value] of Object.entries(byCount)) ((samples[form] ??= {})[count] ??= []).push(value);
    }
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const raw = samples['raw C cuLaunchKernel'] ?? {};
const table = new Table({ head: ['form', ...ARRAY_COUNTS.map((c) => `${c} arrays + int: µs (× raw C)`)], style: { head: [], border: [] } });
for (const [form, byCount] of Object.entries(samples)) {
  table.push([
    form,
    ...ARRAY_COUNTS.map((c) => {
      const xs = byCount[c];
      if (!xs) return '-';
      const m = median(xs);
      const base = raw[c] ? median(raw[c]) : undefined;
      return base ? `${m.toFixed(2)} (${(m / base).toFixed(2)}×)` : m.toFixed(2);
    }),
  ]);
}
console.log(`launch of an empty kernel, µs per launch (median of ${Object.values(raw)[0]?.length ?? 0} interleaved rounds)`);
console.log(table.toString());
for (const [anchor, why] of Object.entries(errors)) console.log(`not measured: ${anchor}: ${why}`);
