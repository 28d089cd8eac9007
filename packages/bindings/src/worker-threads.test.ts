import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The addon keeps per-environment state (the library resolver, the error
// factory) in instance data, and process-wide state (dlopen handles, entry
// points) once per process: the main thread and worker_threads Workers use it
// at once, and a Worker that ends leaves nothing behind that the main thread
// would call into. Each scenario runs in a child process, so that a crash is
// a failed exit status here, not a dead test runner. The calls work without a
// GPU: cuDriverGetVersion, cuInit (CUDA_ERROR_NO_DEVICE here), nvrtcVersion,
// and LibraryNotFoundError where a library is absent (a fresh machine).
const NATIVE = JSON.stringify(join(import.meta.dirname, '..', 'dist', 'native.js'));

function runChild(
  code: string,
  env: Record<string, string> = {},
): { out: string; status: number | null; signal: string | null } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { out: `${r.stdout}${r.stderr}`, status: r.status, signal: r.signal };
}

function lastJson<T>(out: string): T {
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

const SCENARIOS = join(import.meta.dirname, 'test-fixtures', 'worker-scenarios.mjs');
function scenario(name: string): { out: string; status: number | null; signal: string | null } {
  const r = spawnSync(process.execPath, [SCENARIOS, name], { encoding: 'utf8', timeout: 60_000 });
  return { out: `${r.stdout}${r.stderr}`, status: r.status, signal: r.signal };
}

describe('the bindings under worker_threads', () => {
  it('a Worker that made its calls and ended leaves the main thread working (was SIGSEGV)', () => {
    const { out, status, signal } = scenario('worker-first');
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    const r = lastJson<{ inWorker: string; main: string; again: string }>(out);
    expect(r.main).toBe(r.inWorker);
    expect(r.again).toBe(r.main);
    expect(r.main).toMatch(/driverVersion[=!]/);
    expect(r.main).toMatch(/badArgument!TypeError/);
  });

  it('the main thread and several live Workers call at once; Workers terminated mid-use harm nothing', () => {
    const { out, status, signal } = scenario('concurrent');
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    const r = lastJson<{
      expected: string;
      mainRounds: number;
      mainSame: boolean;
      kept: { first: string; rounds: number; same: boolean }[];
      after: string;
      late: string;
    }>(out);
    expect(r.mainSame).toBe(true);
    expect(r.mainRounds).toBeGreaterThan(0);
    expect(r.kept).toHaveLength(2);
    for (const k of r.kept) {
      expect(k.first).toBe(r.expected);
      expect(k.same).toBe(true);
      expect(k.rounds).toBeGreaterThan(0);
    }
    expect(r.after).toBe(r.expected);
    expect(r.late).toBe(r.expected);
  });

  it('a Worker terminated while its Promise-form calls wait leaves the process whole', () => {
    const { out, status, signal } = scenario('terminate-while-waiting');
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    expect(out).not.toContain('settled after terminate');
    expect(lastJson<{ main: string }>(out).main).toMatch(/badArgument!TypeError/);
  });
});

describe("the addon's own threads for GPU waits", () => {
  // Long beside what a loaded machine adds to a file read or a thread's start, so that only waits on the
  // pool, or waits one after another, can fail the comparisons below (500 ms left too little room).
  const WAIT_MS = 2000;
  it("eight concurrent waits leave libuv's pool free: fs.promises.readFile completes meanwhile", () => {
    // UV_THREADPOOL_SIZE=4 (libuv's default): eight waits on pool threads would hold every one of them.
    const { out, status, signal } = runChild(
      `
      import { readFile } from 'node:fs/promises';
      import { readdirSync, readFileSync } from 'node:fs';
      const { native } = await import(${NATIVE});
      const start = performance.now();
      const waits = Array.from({ length: 8 }, () => native.__waitThreadSleepForTests(${WAIT_MS}).then(() => performance.now() - start));
      const read = await readFile(${JSON.stringify(import.meta.filename)}, 'utf8');
      const readMs = performance.now() - start;
      const waited = await Promise.all(waits);
      const names = readdirSync('/proc/self/task').map((t) => readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim());
      console.log(JSON.stringify({ readMs, bytes: read.length, waited, waitThreads: names.filter((n) => n === 'cuda-js-wait').length }));
    `,
      { UV_THREADPOOL_SIZE: '4' },
    );
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    const r = lastJson<{ readMs: number; bytes: number; waited: number[]; waitThreads: number }>(out);
    expect(r.bytes).toBeGreaterThan(0);
    // Measured against the waits themselves, not the clock, so that a loaded machine cannot fail it:
    // the read was not behind the waits (it ended before the first of them)...
    const first = Math.min(...r.waited);
    expect(r.readMs).toBeLessThan(first);
    // ...and the waits ran side by side, one thread each: one after another (or four at a time, the
    // thread pool's size) the later ones would end at least WAIT_MS after the first.
    for (const ms of r.waited) {
      expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 10);
      expect(ms - first).toBeLessThan(WAIT_MS - 10);
    }
    if (process.platform === 'linux') expect(r.waitThreads).toBe(8);
  });

  it('the synchronize calls and the release calls check their arguments first', async () => {
    const { native } = await import('./native.js');
    const n = native as unknown as Record<string, (...a: unknown[]) => unknown>;
    expect(() => n['__waitThreadSleepForTests']!(-1)).toThrow(RangeError);
    expect(() => n['releaseAsync']!('free', 1n)).toThrow(
      /releaseAsync: parameter 'fn' must be one of cuMemFreeHost, cuMemFree, cuMemHostUnregister, cuLibraryUnload, cuModuleUnload/,
    );
    expect(() => n['releaseInBackground']!(1, 1n)).toThrow(TypeError);
    expect(() => (native.driver['cuStreamSynchronizeAsync'] as (s: unknown) => unknown)(1)).toThrow(TypeError);
  });
});

describe('the release thread', () => {
  it('runs releases in order off the JS thread; a refused one is counted, or rejects the Promise form with its CudaError', async () => {
    const { native } = await import('./native.js');
    const { CudaError, driver, LibraryNotFoundError } = await import('./index.js');
    const { backgroundReleaseFailures, releaseAsync, releaseInBackground } = await import('./runtime.js');
    let driverPresent = true;
    try {
      driver.cuDriverGetVersion();
    } catch (e) {
      expect(e).toBeInstanceOf(LibraryNotFoundError);
      driverPresent = false;
    }
    if (!driverPresent) {
      // a fresh machine: the release names the missing library, on the calling thread
      expect(() => releaseInBackground('cuMemFreeHost', 0x1000n)).toThrow(LibraryNotFoundError);
      return;
    }
    // no GPU and no context here: the driver refuses each release
    const before = backgroundReleaseFailures();
    releaseInBackground('cuMemFreeHost', 0x1000n);
    releaseInBackground('cuLibraryUnload', 0x1000n);
    await (
      native as unknown as { __releaseThreadSleepForTests(ms: number): Promise<void> }
    ).__releaseThreadSleepForTests(0); // queued after them
    expect(backgroundReleaseFailures()).toBe(before + 2);
    const error = await releaseAsync('cuMemFree', 0x1000n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CudaError);
    expect((error as InstanceType<typeof CudaError>).functionName).toBe('cuMemFree');
  });
});
