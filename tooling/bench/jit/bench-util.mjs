// Small helpers shared by the JS halves of the JIT benchmark.

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
