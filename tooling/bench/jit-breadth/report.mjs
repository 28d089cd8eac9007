// Merges what run.sh gathered into one markdown report on stdout and a JSON
// of the results.  usage: node report.mjs <results dir> <json out>
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJson } from '../jit/bench-util.mjs';
import { buildReport } from './report-lib.mjs';

const [dir, jsonOut = '/tmp/jit-breadth-bench.json'] = process.argv.slice(2);
const part = (file) => readJson(join(dir, file));
const { markdown, summary } = buildReport({
  host: part('host.json'),
  reduceNode: part('reduce-node.json'),
  reduceNumba: part('reduce-numba.json'),
  matmulNode: part('matmul-node.json'),
  matmulNumba: part('matmul-numba.json'),
  cache: part('cache.json'),
  simNode: part('simulator-node.json'),
  simNumba: part('simulator-numba.json'),
});
console.log(markdown);
writeFileSync(jsonOut, JSON.stringify(summary, null, 2) + '\n');
console.log(`\n(results written to ${jsonOut})`);
