// The cold-start benchmark (issue 23, steps 4 and 5), interleaved run by run,
// each case a fresh process:
//   - the C floor (floor.c): context, cubin load, launch, checked result;
//   - the JIT's cold start, compiling (../jit/cold-cuda-js.mjs, the cache off);
//   - the JIT's cold start whose kernel is a disk-cache hit (hit.mjs, with
//     the first-launch time of the hit and a second load of the cubin);
//   - both again with CUDA_JS_FAST_EXIT=1 (the driver's teardown at exit skipped);
//   - each layer's import alone (imports.mjs): where import time goes.
// Wall time is spawn → exit, measured here; RSS is each child's max RSS.
// usage: node run.mjs <floor binary> <cubin of ../jit/kernels.cu> [runs]   (prints a markdown report)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median, ratio, runChild } from '../jit/bench-util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [floor, cubin, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? 7);
const cacheDir = mkdtempSync(join(tmpdir(), 'cuda-js-cold-cache-'));
const node = (script, args = [], env = {}) =>
  runChild(process.execPath, [join(here, script), ...args], { cwd: here, extraEnv: env, timeoutMs: 120_000 });

// the entry the hits read: written by a first run (a miss, which compiles)
const first = node('hit.mjs', [], { CUDA_JS_CACHE_DIR: cacheDir });
process.stderr.write(
  `cache entry written by a first run: origin ${first.origin ?? '?'}${first.error ? `, error: ${first.error}` : ''}\n`,
);

const LAYERS = [
  '@cuda-js/pathfinder',
  '@cuda-js/bindings',
  '@cuda-js/memory-view',
  '@cuda-js/streams',
  '@cuda-js/program',
  '@cuda-js/core',
  '@cuda-js/jit',
  'cuda-js',
];
const cases = {
  'C floor (context + cubin load + launch + check)': () => runChild(floor, [cubin], { cwd: here }),
  'cuda-js JIT cold start, compiling (cache off)': () =>
    runChild(process.execPath, [join(here, '..', 'jit', 'cold-cuda-js.mjs')], {
      cwd: join(here, '..', 'jit'),
      extraEnv: { CUDA_JS_JIT_CACHE: '0' },
      timeoutMs: 120_000,
    }),
  'cuda-js JIT cold start, disk-cache hit': () => node('hit.mjs', [], { CUDA_JS_CACHE_DIR: cacheDir }),
  'cuda-js JIT cold start, compiling, CUDA_JS_FAST_EXIT=1 (no driver teardown)': () =>
    runChild(process.execPath, [join(here, '..', 'jit', 'cold-cuda-js.mjs')], {
      cwd: join(here, '..', 'jit'),
      extraEnv: { CUDA_JS_JIT_CACHE: '0', CUDA_JS_FAST_EXIT: '1' },
      timeoutMs: 120_000,
    }),
  'cuda-js JIT cold start, disk-cache hit, CUDA_JS_FAST_EXIT=1': () =>
    node('hit.mjs', [], { CUDA_JS_CACHE_DIR: cacheDir, CUDA_JS_FAST_EXIT: '1' }),
  ...Object.fromEntries(LAYERS.map((m) => [`import ${m}`, () => node('imports.mjs', [m])])),
};
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, fn] of Object.entries(cases)) samples[name].push(fn());
  process.stderr.write(`cold start: run ${run + 1}/${runs}\n`);
}
rmSync(cacheDir, { recursive: true, force: true });

const good = (list) => list.filter((s) => !s.error && s.ok !== false);
const pick = (name, f) => median(good(samples[name]).map(f));
const errorsOf = (name) => [
  ...new Set(samples[name].filter((s) => s.error || s.ok === false).map((s) => s.error ?? 'wrong result')),
];
const FLOOR = 'C floor (context + cubin load + launch + check)';
const floorWall = pick(FLOOR, (s) => s.wallMs);
const floorRss = pick(FLOOR, (s) => s.maxRssKB / 1024);

console.log(`## cold start, median of ${runs} fresh processes per case (interleaved)\n`);
console.log(
  '| case | wall ms (× C floor) | max RSS MB (− C floor) | phases ms (since spawn; the C floor since main) |',
);
console.log('|---|---|---|---|');
for (const name of Object.keys(cases).filter((k) => !k.startsWith('import '))) {
  const wall = pick(name, (s) => s.wallMs);
  const rss = pick(name, (s) => s.maxRssKB / 1024);
  const phaseNames = Object.keys(good(samples[name])[0]?.phasesMs ?? {});
  const phases = phaseNames
    .map(
      (p) =>
        `${p} ${fmt(
          pick(name, (s) => s.phasesMs?.[p]),
          1,
        )}`,
    )
    .join(', ');
  const errors = errorsOf(name);
  console.log(
    `| ${name} | ${fmt(wall, 1)} (${ratio(wall, floorWall)}) | ${fmt(rss, 0)} (${rss === undefined || floorRss === undefined ? '—' : `+${fmt(rss - floorRss, 0)}`}) | ${phases}${errors.length ? `; errors: ${errors.join('; ')}` : ''} |`,
  );
}

const HIT = 'cuda-js JIT cold start, disk-cache hit';
const hits = good(samples[HIT]);
console.log('\n## the disk-cache hit from a new process\n');
console.log(
  `origin of the hits' kernels: ${[...new Set(hits.map((s) => s.origin))].join(', ') || '—'}; cubin ${hits[0]?.cubinBytes ?? '?'} bytes\n`,
);
console.log('| step | ms |');
console.log('|---|---|');
console.log(
  `| first launch on a hit (key, entry, load, launcher, launch): the goal is ≤ 2 ms | ${fmt(
    pick(HIT, (s) => s.firstLaunchMs),
    3,
  )} |`,
);
console.log(
  `| of it, the driver's load of the cubin (a second cuLibraryLoadData + get kernel, warm) | ${fmt(
    pick(HIT, (s) => s.loadAgainMs),
    3,
  )} |`,
);
console.log(
  `| jit() of the kernel (parse) | ${fmt(
    pick(HIT, (s) => s.defineMs),
    3,
  )} |`,
);
console.log(
  `| import cuda-js | ${fmt(
    pick(HIT, (s) => s.importMs),
    1,
  )} |`,
);
console.log(
  `| C floor: cubin load (file read + cuLibraryLoadData + get kernel) | ${fmt(
    pick(FLOOR, (s) => s.phasesMs.loaded - s.phasesMs.context),
    3,
  )} |`,
);

console.log('\n## import of each layer alone, in a fresh process (what a cold start pays before its first line)\n');
console.log('| module | import ms | max RSS MB |');
console.log('|---|---|---|');
for (const m of LAYERS) {
  const name = `import ${m}`;
  const errors = errorsOf(name);
  console.log(
    `| ${m} | ${fmt(
      pick(name, (s) => s.importMs),
      1,
    )} | ${fmt(
      pick(name, (s) => s.maxRssKB / 1024),
      0,
    )}${errors.length ? ` (errors: ${errors.join('; ')})` : ''} |`,
  );
}
const jitWall = pick('cuda-js JIT cold start, compiling (cache off)', (s) => s.wallMs);
const jitRss = pick('cuda-js JIT cold start, compiling (cache off)', (s) => s.maxRssKB / 1024);
const yes = (b) => (b ? 'met' : 'not met');
console.log(
  `\ngoals: process start → checked JIT result ≤ 450 ms: ${fmt(jitWall, 0)} ms, ${yes(jitWall <= 450)} (with a cache hit: ${fmt(
    pick(HIT, (s) => s.wallMs),
    0,
  )} ms); max RSS ≤ C floor + 50 MB: +${fmt(jitRss - floorRss, 0)} MB, ${yes(jitRss - floorRss <= 50)}; disk-cache hit ≤ 2 ms: ${fmt(
    pick(HIT, (s) => s.firstLaunchMs),
    2,
  )} ms, ${yes(pick(HIT, (s) => s.firstLaunchMs) <= 2)}`,
);
