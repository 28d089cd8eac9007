import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driver, launchBlockingHostFunc } from './index.js';

// JS host functions that a driver thread calls later (cuLaunchHostFunc,
// cuStreamAddCallback, launchBlockingHostFunc, graph host functions) made in
// a Worker that ends first. The addon's test entry plays the driver's thread
// with a thread of its own, so that this runs without a GPU; the real driver
// is host-function-lifetime.gpu.test.ts. Each scenario runs in a child process:
// a use after free is then a failed exit status here, not a dead test runner.
const SCENARIOS = join(import.meta.dirname, 'test-fixtures', 'host-call-scenarios.mjs');

interface Counts {
  live: number;
  dropped: number;
  waiting: number;
}
interface Outcome {
  before: Counts;
  after: Counts;
  end: Counts;
  main: unknown[];
  ranInWorker?: number;
  ran?: number;
}

// Each scenario is a child process bounded by its own timeout; the tests that run one wait as long
// (vitest's 5 s default failed on a loaded two-core machine, where a scenario that takes 1.5 s alone took longer).
const SCENARIO_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = SCENARIO_TIMEOUT_MS + 10_000;

function scenario(name: string): { out: string; status: number | null; signal: string | null } {
  const r = spawnSync(process.execPath, [SCENARIOS, name], { encoding: 'utf8', timeout: SCENARIO_TIMEOUT_MS });
  return { out: `${r.stdout}${r.stderr}`, status: r.status, signal: r.signal };
}

function outcome(name: string): Outcome {
  const { out, status, signal } = scenario(name);
  expect(signal, out).toBeNull();
  expect(status, out).toBe(0);
  return JSON.parse(out.trim().split('\n').pop()!) as Outcome;
}

/** The main thread's own calls of each form ran afterwards, with their arguments, in their async contexts, and left nothing behind. */
function expectMainThreadWorks(r: Outcome): void {
  expect(r.main).toEqual([
    ['hostFunc context'],
    ['streamCallback context', String(0x5eed), 0],
    ['blocking context'],
    ['graph context', 3],
  ]);
  expect(r.end.live).toBe(r.before.live);
  expect(r.end.waiting).toBe(0);
}

describe('host functions that outlive the Worker that made them', { timeout: TEST_TIMEOUT_MS }, () => {
  it('a Worker terminated before the driver calls: each call is dropped once on the driver side, and nothing is left', () => {
    const r = outcome('terminated-before-the-driver-calls');
    expect(r.ranInWorker).toBe(0);
    expect(r.after.live).toBe(r.before.live);
    expect(r.after.waiting).toBe(0); // the blocking form's driver threads went on
    // 5 copies of: cuLaunchHostFunc, cuStreamAddCallback, launchBlockingHostFunc (one call each) and a graph host function (3 calls and its release)
    expect(r.after.dropped - r.before.dropped).toBe(5 * (3 + 3 + 1));
    expectMainThreadWorks(r);
  });

  it('20 Workers terminated while their calls are with the driver, queued, running or done: the process stays whole', () => {
    const r = outcome('terminated-at-any-moment');
    expect(r.after.live).toBe(r.before.live);
    expect(r.after.waiting).toBe(0);
    expect(r.ran).toBeGreaterThan(0);
    // every JS call ran at most once or was dropped at most once (releases are dropped, or run without being counted)
    expect(r.ran! + (r.after.dropped - r.before.dropped)).toBeLessThanOrEqual(20 * (2 * (3 + 2) + 2));
    expectMainThreadWorks(r);
  });

  it("a Worker that calls process.exit() right after it enqueued: its calls run no JS and are freed in its teardown or on the driver's side", () => {
    const r = outcome('worker-exits-itself');
    expect(r.ranInWorker).toBe(0);
    expect(r.after.live).toBe(r.before.live);
    expect(r.after.waiting).toBe(0);
    expect(r.after.dropped - r.before.dropped).toBeLessThanOrEqual(5 * (3 + 3 + 1));
    expectMainThreadWorks(r);
  });

  it("a throw from any form is the thread's 'uncaughtException', after the stream was let go; `this` is undefined", () => {
    const { out, status, signal } = scenario('throwing-callbacks');
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    const r = JSON.parse(out.trim().split('\n').pop()!) as { uncaught: string[]; self: string; end: Counts };
    expect(r.uncaught).toEqual(['blocking', 'graph', 'graph', 'hostFunc', 'streamCallback']);
    expect(r.self).toBe('undefined');
    expect(r.end).toMatchObject({ live: 0, waiting: 0 });
  });

  it("process.exit() while a blocking call waits for the main thread releases the driver's thread", () => {
    // a driver thread left waiting would keep the child alive until the scenario timeout kills it: a signal here
    const { out, status, signal } = scenario('exit-while-blocking');
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    expect(out).not.toContain('never');
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ waiting: 1 });
  });
});

const NOT_FUNCTIONS: unknown[] = [
  undefined,
  null,
  0,
  -1,
  Number.NaN,
  1.5,
  '',
  'f',
  {},
  [],
  Symbol('s'),
  2n ** 64n,
  0n,
  true,
  new Uint8Array(4),
];
const NOT_UINT32: unknown[] = [-1, 2 ** 32, 1.5, Number.NaN, Number.POSITIVE_INFINITY];

describe('the stream host functions check their input before the driver', () => {
  it('each form names a callback that is not a function, a stream that is not a bigint handle, and bad flags', () => {
    const forms: [string, (stream: unknown, callback: unknown) => unknown][] = [
      ['cuLaunchHostFunc', (s, f) => driver.cuLaunchHostFunc(s as never, f as never)],
      ['cuStreamAddCallback', (s, f) => driver.cuStreamAddCallback(s as never, f as never)],
      ['launchBlockingHostFunc', (s, f) => launchBlockingHostFunc(s as never, f as never)],
    ];
    for (const [name, enqueue] of forms) {
      for (const value of NOT_FUNCTIONS) {
        expect(() => enqueue(0x1234n, value), `${name}(stream, ${String(value)})`).toThrow(
          new RegExp(`${name}: parameter 'callback' must be a function`),
        );
      }
      for (const value of [1, '1', null, undefined, {}])
        expect(() => enqueue(value, () => undefined), name).toThrow(TypeError);
      expect(() => enqueue(2n ** 64n, () => undefined), name).toThrow(RangeError);
      expect(() => enqueue(-1n, () => undefined), name).toThrow(RangeError);
    }
    for (const flags of NOT_UINT32)
      expect(
        () => driver.cuStreamAddCallback(0x1234n as never, () => undefined, flags as never),
        String(flags),
      ).toThrow(RangeError);
    expect(() => driver.cuStreamAddCallback(0x1234n as never, () => undefined, '0' as never)).toThrow(TypeError);
  });

  it("the addon's test entry names bad forms, delays and launch counts", async () => {
    const { native } = await import('./native.js');
    const hostCall = (native as unknown as { __hostCallForTests(...a: unknown[]): void }).__hostCallForTests;
    for (const form of [undefined, null, 1, {}])
      expect(() => hostCall(form, () => undefined, 0)).toThrow(/parameter 'form'/);
    expect(() => hostCall('cuLaunchHostFunc', () => undefined, 0)).toThrow(RangeError);
    for (const value of NOT_FUNCTIONS)
      expect(() => hostCall('graph', value, 0)).toThrow(/parameter 'callback' must be a function/);
    for (const delay of [-1, Number.NaN, 60_001, '1'])
      expect(() => hostCall('hostFunc', () => undefined, delay)).toThrow(/parameter 'delayMs'/);
    for (const launches of [-1, 1001, 1.5])
      expect(() => hostCall('graph', () => undefined, 0, launches)).toThrow(/parameter 'launches'/);
  });

  it('cuStreamAddCallback names a callback that is not a function, and bad flags', () => {
    expect(() => driver.cuStreamAddCallback(0x1234n as never, 5 as never)).toThrow(
      /cuStreamAddCallback: parameter 'callback' must be a function, got the number 5/,
    );
    expect(() => driver.cuStreamAddCallback(0x1234n as never, () => undefined, -1)).toThrow(RangeError);
    expect(() => driver.cuStreamAddCallback(1 as never, () => undefined)).toThrow(
      /cuStreamAddCallback: parameter 'hStream' must be a bigint/,
    );
    expect(() => (driver.cuStreamAddCallback as (...a: unknown[]) => unknown)(0n, () => undefined, 0, 1)).toThrow(
      /expected 2 to 3 arguments/,
    );
  });
});
