// The report of the JIT breadth benchmark from what its parts printed: one
// markdown text and a JSON summary. Pure (no files, no clock), so that it is
// tested beside it; report.mjs reads the parts' outputs and writes.
import { fmt, median, orNull, ratio, table } from '../jit/bench-util.mjs';

export const JIT = 'cuda-js jit';
export const NVCC = 'nvcc (CUDA C++)';
export const NUMBA = 'numba-cuda';

/** The first line of a reason, short enough for a note. */
const short = (why) => String(why ?? 'not run').split('\n')[0];

/** Whether one cache run of `side` found its kernel in the cache, or why not. */
export function cacheHitProblem(side, r) {
  if (!r) return 'not run';
  if (r.error) return short(r.error);
  if (r.ok === false) return 'wrong result';
  const folder = side === 'cuda-js' ? 'CUDA_JS_CACHE_DIR' : 'NUMBA_CACHE_DIR';
  if (r.cacheFiles !== undefined && !(r.cacheFiles > 0))
    return `nothing in ${folder} (did the first process write the cache there?)`;
  if (r.newFiles > 0) return `the process added ${r.newFiles} file(s) to ${folder}: a miss`;
  const counter = side === 'cuda-js' ? 'kernel.cacheStats' : 'numba';
  if (r.cacheMisses > 0) return `${counter} counted ${r.cacheMisses} cache miss(es)`;
  if (r.cacheHits === 0) return `${counter} counted no cache hit`;
  return undefined;
}

/**
 * One side of one kernel of part 3: the miss (the process that filled the
 * cache) and the median of the hits that were hits; a side with no good
 * hit is `{ value: null, reason }` with what went wrong.
 */
export function summarizeCacheSide(side, { miss, hits = [] } = {}) {
  const problems = [];
  const good = [];
  for (const r of hits) {
    const why = cacheHitProblem(side, r);
    if (why === undefined) good.push(r);
    else problems.push(why);
  }
  const missOk = miss && !miss.error && miss.ok !== false;
  const summary = {
    missMs: missOk ? miss.compileMs : undefined,
    missError: miss && !missOk ? short(miss.error ?? 'wrong result') : undefined,
    missWrote: missOk && miss.cacheFiles !== undefined ? miss.cacheFiles > 0 : undefined,
    runs: hits.length,
    hits: good.length,
    problems: [...new Set(problems)],
  };
  if (good.length === 0)
    return { ...summary, value: null, reason: summary.problems.join('; ') || summary.missError || 'not run' };
  return {
    ...summary,
    hitMs: median(good.map((r) => r.compileMs)),
    hitWallMs: median(good.map((r) => r.wallMs)),
    hitJitMs: median(good.map((r) => r.jitMs)),
    samplesMs: good.map((r) => r.compileMs),
  };
}

const check = {
  reduce: (r) =>
    r?.ok === undefined
      ? '—'
      : `${r.ok ? 'ok' : 'wrong'} (relative error ${typeof r.relError === 'number' ? r.relError.toPrecision(2) : '?'})`,
  matmul: (r) =>
    r?.ok === undefined
      ? '—'
      : `${r.ok ? 'ok' : 'wrong'} (${r.checked ?? '?'} entries, worst ${fmt(r.maxError, 2)} of the tolerance)`,
};

/**
 * inputs: { host, reduceNode, reduceNumba, matmulNode, matmulNumba, cache,
 * simNode, simNumba }, each what that part printed (an object with `error`
 * where it printed none). Gives { markdown, summary }.
 */
export function buildReport({
  host = {},
  reduceNode = {},
  reduceNumba = {},
  matmulNode = {},
  matmulNumba = {},
  cache = {},
  simNode = {},
  simNumba = {},
}) {
  const lines = [];
  const say = (s = '') => lines.push(s);
  const notes = [];
  const notMeasured = (what, why) => notes.push(`not measured: ${what}: ${short(why)}`);

  say(`## JIT breadth benchmark (${host.date ?? '?'})`);
  say();
  say(
    `GPU: ${host.gpu ?? '?'}; CPU: ${host.cpu ?? '?'} (${host.cores ?? '?'} cores); Node.js ${host.node ?? '?'}; ${host.python ?? 'python3: ?'}; nvcc: ${host.nvcc ?? '?'}; arch ${host.arch ?? '?'}`,
  );
  say();
  say(
    'Every kernel is the same algorithm in the three languages (kernels.mjs, kernels.cu, numba_breadth.py). GPU timing: each sample is one launch that fills the queue, then a batch of launches between two events (ms per launch = elapsed / batch); the median of the samples, the kernels taking turns.',
  );

  // ---- 1. reduction
  const reduce = {
    [JIT]: reduceNode.results?.[JIT],
    [NVCC]: reduceNode.results?.[NVCC],
    [NUMBA]: reduceNumba.error && reduceNumba.ms === undefined ? undefined : reduceNumba,
  };
  for (const name of [JIT, NVCC])
    if (!reduce[name]) notMeasured(`reduction, ${name}`, reduceNode.errors?.[name] ?? reduceNode.error);
  if (!reduce[NUMBA]) notMeasured(`reduction, ${NUMBA}`, reduceNumba.error);
  for (const [name, why] of Object.entries(reduceNode.errors ?? {}))
    if (reduce[name]) notes.push(`reduction, ${name}: ${short(why)}`);
  if (reduce[NUMBA]?.ok === false) notes.push(`reduction, ${NUMBA}: wrong result: ${short(reduceNumba.error)}`);
  const n1 = reduceNode.n ?? reduceNumba.n;
  const grid1 = reduceNode.grid ?? reduceNumba.grid;
  if (reduceNode.grid !== undefined && reduceNumba.grid !== undefined && reduceNode.grid !== reduceNumba.grid)
    notes.push(`reduction: the grids differ (cuda-js ${reduceNode.grid}, numba ${reduceNumba.grid})`);
  say();
  say(
    `### 1. Block reduction of ${n1 ?? '?'} float32 (GB/s = 4 bytes read an element / time), blocks of 256 on a grid of ${grid1 ?? '?'} (32 × ${reduceNode.sms ?? reduceNumba.sms ?? '?'} SMs), median of ${reduceNode.reps ?? reduceNumba.reps ?? '?'} samples of ${reduceNode.batch ?? reduceNumba.batch ?? '?'} launches`,
  );
  say();
  say(
    'Grid-stride accumulation with four independent loads an iteration, a shared-memory tree down to 64 partial sums, warp shuffles for the last 64, one atomic add a block; checked against the f64 sum on the host (x[i] = i % 16).',
  );
  say();
  const nv1 = reduce[NVCC]?.gbPerS;
  const nb1 = reduce[NUMBA]?.gbPerS;
  say(
    table(
      ['kernel', 'GB/s', 'ms', '× nvcc', '× numba-cuda', 'result'],
      Object.entries(reduce).map(([name, r]) => [
        name,
        fmt(r?.gbPerS, 0),
        fmt(r?.ms, 4),
        ratio(r?.gbPerS, nv1),
        ratio(r?.gbPerS, nb1),
        check.reduce(r),
      ]),
    ),
  );

  // ---- 2. matmul
  const tiles = [...new Set([...(matmulNode.tiles ?? []), ...(matmulNumba.tiles ?? [])])].sort((a, b) => a - b);
  if (tiles.length === 0) tiles.push(16, 32);
  const mm = (impl, tile) => (impl === NUMBA ? matmulNumba.results?.[tile] : matmulNode.results?.[impl]?.[tile]);
  const mmRows = [];
  for (const impl of [JIT, NVCC, NUMBA]) {
    for (const tile of tiles) {
      const r = mm(impl, tile);
      const label = `${impl}, ${tile}×${tile}`;
      if (!r)
        notMeasured(
          `matmul, ${label}`,
          impl === NUMBA
            ? (matmulNumba.errors?.[tile] ?? matmulNumba.error)
            : (matmulNode.errors?.[`${impl} ${tile}×${tile}`] ?? matmulNode.error),
        );
      else if (r.ok === false)
        notes.push(
          `matmul, ${label}: ${short(impl === NUMBA ? matmulNumba.errors?.[tile] : matmulNode.errors?.[`${impl} ${tile}×${tile}`]) || 'wrong result'}`,
        );
      mmRows.push([
        impl,
        `${tile}×${tile}`,
        fmt(r?.tflops, 2),
        fmt(r?.ms, 3),
        ratio(r?.tflops, mm(NVCC, tile)?.tflops),
        ratio(r?.tflops, mm(NUMBA, tile)?.tflops),
        check.matmul(r),
      ]);
    }
  }
  const best = {};
  for (const impl of [JIT, NVCC, NUMBA]) {
    const measured = tiles.map((t) => [t, mm(impl, t)?.tflops]).filter(([, v]) => typeof v === 'number');
    if (measured.length) {
      const [tile, tflops] = measured.reduce((p, q) => (q[1] > p[1] ? q : p));
      best[impl] = { tile, tflops };
    }
  }
  const n2 = matmulNode.n ?? matmulNumba.n;
  say();
  say(
    `### 2. Tiled shared-memory matmul, ${n2 ?? '?'}² float32 (TFLOP/s = 2 n³ / time), median of ${matmulNode.reps ?? matmulNumba.reps ?? '?'} samples of ${matmulNode.batch ?? matmulNumba.batch ?? '?'} launches`,
  );
  say();
  say(
    'The classic kernel: one element of C a thread, blocks of tile × tile threads, two shared tiles, two barriers a tile step; every element checked written, 64 entries against an f64 host reference. Ratios are against the same tile.',
  );
  say();
  say(table(['kernel', 'tile', 'TFLOP/s', 'ms', '× nvcc', '× numba-cuda', 'result'], mmRows));
  if (Object.keys(best).length) {
    say();
    say(
      `Best tile: ${Object.entries(best)
        .map(([impl, b]) => `${impl} ${b.tile}×${b.tile} (${fmt(b.tflops, 2)} TFLOP/s)`)
        .join('; ')}.`,
    );
  }

  // ---- 3. disk cache
  const cacheSummary = {};
  const cacheRows = [];
  for (const kernel of Object.keys(cache.kernels ?? { reduce: 0, matmul: 0 })) {
    const sides = cache.kernels?.[kernel] ?? {};
    const js = summarizeCacheSide('cuda-js', sides['cuda-js']);
    const nb = summarizeCacheSide(NUMBA, sides[NUMBA]);
    cacheSummary[kernel] = { 'cuda-js': js, [NUMBA]: nb };
    if (cache.error && !cache.kernels) {
      notMeasured(`disk cache, ${kernel}`, cache.error);
    } else {
      for (const [side, r] of [
        ['cuda-js', js],
        [NUMBA, nb],
      ]) {
        if (r.value === null) notMeasured(`disk cache, ${kernel}, ${side}`, r.reason);
        else {
          if (r.problems.length)
            notes.push(
              `disk cache, ${kernel}, ${side}: ${r.runs - r.hits} of ${r.runs} runs were no hit: ${r.problems.join('; ')}`,
            );
          if (r.missError)
            notes.push(`disk cache, ${kernel}, ${side}: the process that fills the cache failed: ${r.missError}`);
        }
      }
    }
    cacheRows.push([
      kernel,
      fmt(js.hitMs, 2),
      fmt(nb.hitMs, 2),
      ratio(js.hitMs, nb.hitMs),
      fmt(js.missMs, 1),
      fmt(nb.missMs, 1),
      fmt(js.hitWallMs, 0),
      fmt(nb.hitWallMs, 0),
    ]);
  }
  say();
  say(
    `### 3. Disk-cache hit from a new process (median of ${cache.runs ?? '?'} fresh processes per kernel and side, after one that filled the cache)`,
  );
  say();
  say(
    "cuda-js: `performance.now()` around `kernel.compile(signature)` of `jit(fn, { cache: true })` (CUDA_JS_CACHE_DIR), the context and arrays made before. numba-cuda: the first call of `@cuda.jit(cache=True)` (NUMBA_CACHE_DIR), launch and sync included, minus the second call; the context made before. Reduction: the kernel of part 1; matmul: part 2's with 32 × 32 tiles.",
  );
  say();
  say(
    table(
      [
        'kernel',
        'cuda-js hit: ms',
        'numba-cuda hit: ms',
        'cuda-js / numba',
        'cuda-js filling: ms',
        'numba-cuda filling: ms',
        'cuda-js process wall: ms',
        'numba-cuda process wall: ms',
      ],
      cacheRows,
    ),
  );

  // ---- 4. simulator
  if (simNode.error) notMeasured('simulator, cuda-js', simNode.error);
  else if (simNode.ok === false) notes.push('simulator (cuda-js): wrong result');
  if (simNumba.error && simNumba.usPerThread === undefined) notMeasured(`simulator, ${NUMBA}`, simNumba.error);
  else if (simNumba.ok === false) notes.push(`simulator (${NUMBA}): wrong result: ${short(simNumba.error)}`);
  say();
  say(
    `### 4. Simulator: a shared-memory tree reduction in blocks of ${simNode.block ?? simNumba.block ?? 128} threads, ${simNode.barriers ?? simNumba.barriers ?? 8} barriers, on host float32 arrays, µs per thread`,
  );
  say();
  say(
    `cuda-js: \`{ target: 'simulator' }\`, race checks on (always), ${simNode.blocks ?? '?'} blocks, the median of ${simNode.reps ?? '?'} launches after the first; numba-cuda: NUMBA_ENABLE_CUDASIM=1 (a Python thread for each CUDA thread) on ${simNumba.blocks ?? '?'} blocks, the median of ${simNumba.reps ?? '?'} launches; per thread.`,
  );
  say();
  say(
    table(
      ['simulator', 'threads', 'µs / thread', 'first launch µs / thread', '× numba'],
      [
        [
          "cuda-js jit { target: 'simulator' }",
          fmt(simNode.threads, 0),
          fmt(simNode.usPerThread, 4),
          fmt(simNode.firstUsPerThread, 4),
          ratio(simNode.usPerThread, simNumba.usPerThread),
        ],
        ['numba-cuda NUMBA_ENABLE_CUDASIM=1', fmt(simNumba.threads, 0), fmt(simNumba.usPerThread, 1), '', ''],
      ],
    ),
  );

  if (notes.length) {
    say();
    say('Notes:');
    for (const note of notes) say(`- ${note}`);
  }
  const markdown = lines.join('\n');
  const summary = {
    host,
    reduce: { node: orNull(reduceNode), numba: orNull(reduceNumba) },
    matmul: { node: orNull(matmulNode), numba: orNull(matmulNumba), best },
    cache: { summary: cacheSummary, raw: cache },
    simulator: { node: orNull(simNode), numba: orNull(simNumba) },
    notes,
    markdown,
  };
  return { markdown, summary };
}
