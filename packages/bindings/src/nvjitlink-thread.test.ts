import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addon, native } from './native.js';

// nvJitLink itself is absent here; these tests drive the addon's nvJitLink
// thread through its test-only entry, which takes the same two paths as the
// nvJitLink functions (blocking, and a Promise like nvJitLinkCompleteAsync).
// nvjitlink.gpu.test.ts runs the real linker on it.
const ADDON =
  'path' in addon
    ? addon.path
    : join(import.meta.dirname, '..', 'prebuilds', `${process.platform}-${process.arch}`, 'cuda_js_bindings.node');
const DIST = join(import.meta.dirname, '..', 'dist', 'index.js');
const linux = process.platform === 'linux';

interface ThreadIds {
  job: number;
  caller: number;
}
const threadIds = native.__nvJitLinkThreadIdForTests;

function runChild(
  code: string,
  env: Record<string, string> = {},
  module = false,
): { out: string; status: number | null; signal: string | null } {
  const args = module ? ['--input-type=module', '-e', code] : ['-e', code];
  const r = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { out: `${r.stdout}${r.stderr}`, status: r.status, signal: r.signal };
}

/** The name of one of this process's threads, from /proc (Linux). */
function threadName(tid: number): string | undefined {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

// For an ES module child: names() lists the names of its threads (Linux).
const THREAD_NAMES = `import { readdirSync as ls, readFileSync as read } from 'node:fs';
       const names = () => ls('/proc/self/task').map((t) => read('/proc/self/task/' + t + '/comm', 'utf8').trim());`;

describe('the nvJitLink thread', () => {
  it('runs blocking calls on one thread that is not the calling JS thread, and keeps it', () => {
    const first = threadIds();
    const again = threadIds(false, 5);
    expect(first.job).not.toBe(first.caller);
    expect(again).toEqual(first);
  });

  it.runIf(linux)('is a live thread of this process, named for debuggers', () => {
    const { job } = threadIds();
    expect(readdirSync('/proc/self/task')).toContain(String(job));
    expect(threadName(job)).toBe('cuda-js-nvjlink');
  });

  it('runs the Promise form on the same thread and settles it on the calling JS thread', async () => {
    const sync = threadIds();
    const results = await Promise.all([threadIds(true, 20), threadIds(true), threadIds(true, 1)]);
    for (const r of results) expect(r).toEqual(sync);
  });

  it('runs jobs in the order posted: a blocking call waits for the Promise job queued before it', async () => {
    const pending = threadIds(true, 150);
    const start = performance.now();
    const sync = threadIds(false);
    // a lower bound only: the queued 150 ms job ran first on the same thread
    expect(performance.now() - start).toBeGreaterThanOrEqual(149);
    expect(await pending).toEqual(sync);
  });

  it('names bad arguments of the test entry', () => {
    expect(() => threadIds(1 as unknown as false)).toThrow(
      /__nvJitLinkThreadIdForTests: parameter 'async' must be a boolean/,
    );
    expect(() => threadIds(false, -1)).toThrow(RangeError);
    expect(() => threadIds(false, Number.NaN)).toThrow(/parameter 'delayMs' must be in \[0, 60000\]/);
  });
});

describe('the nvJitLink thread across JS threads and at exit', () => {
  it('is the one thread of the process: worker_threads use it too, and a worker that ends while its job runs harms nothing', () => {
    const { out, status, signal } = runChild(`
      const { Worker } = require('node:worker_threads');
      const addon = require(${JSON.stringify(ADDON)});
      const main = addon.__nvJitLinkThreadIdForTests();
      const w = new Worker(\`
        const { parentPort } = require('node:worker_threads');
        const addon = require(${JSON.stringify(ADDON)});
        const sync = addon.__nvJitLinkThreadIdForTests();
        addon.__nvJitLinkThreadIdForTests(true).then((async) => {
          addon.__nvJitLinkThreadIdForTests(true, 300).then(() => parentPort.postMessage({ settledAfterEnd: true }));
          parentPort.postMessage({ sync, async });
        });
      \`, { eval: true });
      w.once('message', async (m) => {
        await w.terminate();
        const after = await addon.__nvJitLinkThreadIdForTests(true);
        console.log(JSON.stringify({ main, worker: m, after, again: addon.__nvJitLinkThreadIdForTests() }));
      });
    `);
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      main: ThreadIds;
      worker: { sync: ThreadIds; async: ThreadIds };
      after: ThreadIds;
      again: ThreadIds;
    };
    expect(r.worker.sync.job).toBe(r.main.job);
    expect(r.worker.async.job).toBe(r.main.job);
    expect(r.worker.sync.caller).not.toBe(r.main.caller); // the worker's own JS thread
    expect(r.worker.async.caller).toBe(r.worker.sync.caller);
    expect(r.after).toEqual(r.main);
    expect(r.again).toEqual(r.main);
    expect(out).not.toContain('settledAfterEnd');
  });

  it('keeps the event loop alive until a Promise settles, then lets the process end', () => {
    const { out, status, signal } = runChild(`
      const addon = require(${JSON.stringify(ADDON)});
      addon.__nvJitLinkThreadIdForTests(true, 200).then((r) => console.log('settled ' + (r.job !== r.caller)));
    `);
    expect(signal, out).toBeNull();
    expect(status, out).toBe(0);
    expect(out).toContain('settled true');
  });

  it('never holds up process.exit, even with a job running', () => {
    // a 30 s job against a 50 ms timer: no loaded machine lets the job settle first
    const { out, status, signal } = runChild(`
      const addon = require(${JSON.stringify(ADDON)});
      addon.__nvJitLinkThreadIdForTests(true, 30000).then(() => console.log('settled'));
      setTimeout(() => { console.log('exiting'); process.exit(7); }, 50);
    `);
    expect(signal, out).toBeNull();
    expect(status, out).toBe(7);
    expect(out).toContain('exiting');
    expect(out).not.toContain('settled');
  });
});

describe.runIf(linux)('loading nvJitLink', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-nvjitlink-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('needs the built package (npm test builds it first)', () => {
    expect(existsSync(DIST), `${DIST} is missing: run the build`).toBe(true);
  });

  it('starts no thread until a library is found, then loads it on the nvJitLink thread (dlerror read there)', () => {
    const notElf = join(dir, 'libnvJitLink.so.13');
    // An ELF header of this machine (what pathfinder checks before dlopen) that the loader still refuses: e_version 0.
    const header = Buffer.alloc(64);
    header.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    header.writeUInt16LE(3, 16); // ET_DYN
    header.writeUInt16LE(({ x64: 62, arm64: 183 } as Record<string, number>)[process.arch] ?? 0, 18);
    writeFileSync(notElf, header);
    const { out, status } = runChild(
      `import { nvjitlink } from ${JSON.stringify(DIST)};
       ${THREAD_NAMES}
       console.log('before=' + names().includes('cuda-js-nvjlink'));
       try { nvjitlink.nvJitLinkVersion(); console.log('no-error'); }
       catch (e) { console.log('error=' + e.name + ': ' + e.message); }
       console.log('after=' + names().includes('cuda-js-nvjlink'));`,
      { CUDA_JS_LIB_NVJITLINK: notElf },
      true,
    );
    expect(status, out).toBe(0);
    expect(out).toContain('before=false');
    // "ELF file version does not match" is dlerror's text, which is per thread: it was read where dlopen ran
    expect(out).toMatch(
      new RegExp(
        `error=LibraryLoadError: nvJitLinkVersion: could not load nvJitLink from ${notElf.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*ELF file version`,
      ),
    );
    expect(out).toContain('after=true');
  });

  it('starts no thread when the library is missing (its path is resolved on the JS thread first)', () => {
    const { out, status } = runChild(
      `import { nvjitlink, LibraryNotFoundError } from ${JSON.stringify(DIST)};
       ${THREAD_NAMES}
       try { nvjitlink.nvJitLinkCreate(['-arch=sm_90']); console.log('no-error'); }
       catch (e) { console.log('error=' + (e instanceof LibraryNotFoundError)); }
       console.log('threads=' + JSON.stringify(names()));`,
      { CUDA_JS_LIB_NVJITLINK: join(dir, 'absent', 'libnvJitLink.so.13') },
      true,
    );
    expect(status, out).toBe(0);
    expect(out).toContain('error=true');
    expect(out).toMatch(/threads=\["node"/);
    expect(out).not.toContain('cuda-js-nvjlink');
  });
});
