/**
 * The fast-check parameters of the fuzz suites (`*.fuzz.test.ts`): seeded
 * and bounded, so that `npm test` runs each property a few dozen times in a
 * few seconds with the same inputs every time; a long run for nightly use
 * sets `CUDA_JS_FUZZ_RUNS` (runs per property, e.g. 100000) and may set
 * `CUDA_JS_FUZZ_SEED` (a new seed each night finds new inputs; a failure
 * prints the seed and path that replay it).
 */
export interface FuzzParameters {
  readonly numRuns: number;
  readonly seed: number;
  /** Whether this is the long (nightly) mode: CUDA_JS_FUZZ_RUNS was set. */
  readonly long: boolean;
}

/** The seed of a default run: fixed, so that a failure in CI is the same failure on every machine. */
export const DEFAULT_FUZZ_SEED = 20;

/**
 * The parameters of one property: `runs` per property by default (keep the
 * whole file under about a second), or CUDA_JS_FUZZ_RUNS in the long mode;
 * the seed from CUDA_JS_FUZZ_SEED, else {@link DEFAULT_FUZZ_SEED}.
 */
export function fuzzParameters(runs: number, env: NodeJS.ProcessEnv = process.env): FuzzParameters {
  const longRuns = readPositiveInteger(env['CUDA_JS_FUZZ_RUNS'], 'CUDA_JS_FUZZ_RUNS');
  const seed = readPositiveInteger(env['CUDA_JS_FUZZ_SEED'], 'CUDA_JS_FUZZ_SEED') ?? DEFAULT_FUZZ_SEED;
  return { numRuns: longRuns ?? runs, seed, long: longRuns !== undefined };
}

/**
 * A vitest timeout for a fuzz test: `ms` for the default run, scaled by the
 * long mode's runs over the default's (a long run is never cut short).
 */
export function fuzzTimeout(runs: number, ms = 30_000, env: NodeJS.ProcessEnv = process.env): number {
  const { numRuns } = fuzzParameters(runs, env);
  return Math.max(ms, Math.ceil((ms * numRuns) / runs));
}

function readPositiveInteger(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}
