// Small helpers shared by the JS halves of the JIT benchmarks (this folder and ../jit-breadth).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Milliseconds since the Unix epoch, with sub-millisecond resolution. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** Milliseconds since the parent spawned this process (it passes its clock in CUDA_JS_BENCH_SPAWN_MS), or undefined. */
export function sinceSpawnMs() {
  const spawned = Number(process.env.CUDA_JS_BENCH_SPAWN_MS);
  return Number.isFinite(spawned) && spawned > 0 ? epochMs() - spawned : undefined;
}

export function median(xs) {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Prints one JSON line on stdout (the parent reads the last line). */
export function emit(value) {
  process.stdout.write(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
}

/** The first line of an error's message, with its class name. */
export function reason(error) {
  if (!(error instanceof Error)) return String(error);
  return `${error.name}: ${String(error.message).split('\n')[0]}`;
}

/** The number after `--name` on the command line, or `fallback`. */
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/**
 * A vite server that loads the repository's TypeScript sources as the tests
 * load them (`server.ssrLoadModule('/packages/…')`), so that no build is
 * needed; close it when done.
 */
export async function sourceServer() {
  const { createServer } = await import('vite');
  const { sourceAliases } = await import('../../scripts/source-aliases.mjs');
  return createServer({
    root: join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'),
    configFile: false,
    logLevel: 'error',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, watch: null },
    resolve: { alias: sourceAliases() },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
}

/** Nanoseconds per thread of `launch()` (over `threads` threads): the middle of `rounds` rounds of `runs` launches each. */
export function nsPerThread(launch, { runs, rounds, threads }) {
  const perThread = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let r = 0; r < runs; r++) launch();
    perThread.push(Number(process.hrtime.bigint() - start) / (runs * threads));
  }
  perThread.sort((p, q) => p - q);
  return perThread[Math.floor(perThread.length / 2)];
}

/** Host arrays for an axpy check: x[i] = i % 1000, y[i] = 1. */
export function axpyInputs(n) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = i % 1000;
  return { x, y: new Float32Array(n).fill(1) };
}

/** The first index where `y` differs from `expected(i)`, or -1. */
export function firstMismatch(y, expected) {
  for (let i = 0; i < y.length; i++) if (y[i] !== Math.fround(expected(i))) return i;
  return -1;
}

/**
 * Runs `command args` to its end in a fresh process, with the parent's clock
 * in CUDA_JS_BENCH_SPAWN_MS, and gives the JSON object on the last line of
 * its stdout with `wallMs` (spawn to exit) added, or `{ error, wallMs }`
 * naming why there is none (the first line of its output that names an
 * error, else its last).
 */
export function runChild(command, args, { cwd, extraEnv = {}, timeoutMs = 60_000 } = {}) {
  const env = { ...process.env, ...extraEnv, CUDA_JS_BENCH_SPAWN_MS: String(epochMs()) };
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 24 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) return { error: `${command}: ${r.error.message}`, wallMs };
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  let parsed;
  try {
    parsed = JSON.parse(last);
  } catch {
    const text = (r.stderr || r.stdout).trim().split('\n');
    const tail = text.find((l) => /^[A-Za-z_.]*(Error|Exception)( \[|:)| failed/.test(l))?.trim() ?? text.at(-1);
    return { error: `exit ${r.status ?? r.signal}: ${tail || 'no output'}`, wallMs };
  }
  if (r.status !== 0 && !parsed.error) parsed.error = `exit ${r.status ?? r.signal}`;
  return { ...parsed, wallMs };
}

// ---- for the reports (report.mjs here and in ../jit-breadth)

/** The last line of a step's output file as JSON, or `{ error }` saying why there is none. */
export function readJson(path) {
  if (!existsSync(path)) return { error: `${path} was not written` };
  const text = readFileSync(path, 'utf8').trim();
  const last = text.split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last);
  } catch {
    return { error: `unreadable output: ${last.slice(0, 200) || 'empty'}` };
  }
}

/** A number with `digits` decimals, or an em dash. */
export const fmt = (v, digits = 2) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '—');

/** `a / b` as `1.23×` (two significant digits below 0.1), or an em dash. */
export const ratio = (a, b) => {
  if (typeof a !== 'number' || typeof b !== 'number' || !(b > 0)) return '—';
  const r = a / b;
  return `${r >= 0.1 ? r.toFixed(2) : r.toPrecision(2)}×`;
};

/** A measurement that could not be made is null with the reason, in the JSON. */
export const orNull = (r) =>
  r && typeof r === 'object' && r.error && r.results === undefined && r.ms === undefined
    ? { value: null, reason: r.error }
    : r;

/** ' (met)', ' (not met)', or nothing where the goal could not be judged. */
export const mark = (ok) => (ok === undefined ? '' : ok ? ' (met)' : ' (not met)');

/** A markdown table. */
export const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );
