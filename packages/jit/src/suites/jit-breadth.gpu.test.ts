// What the breadth suite cannot show in one process: the disk cache across
// processes, printf's output, and a cooperative grid that cannot be co-resident.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cuda, jit } from '../index.js';

const DIST = join(import.meta.dirname, '..', '..', 'dist', 'index.js');
const CORE_DIST = join(import.meta.dirname, '..', '..', '..', 'core', 'dist', 'index.js');

/** A child process that compiles a kernel calling a device function with `{ cache: true }` and prints its cache stats. */
const cacheChild = (factor: number) => `
import { jit, cuda, f32, array } from ${JSON.stringify(DIST)};
import { Device } from ${JSON.stringify(CORE_DIST)};
Device.get(0).setCurrent(); // the context is not the cache's cost
const scale = jit.device((x) => x * ${factor});
const k = jit((x) => { const i = cuda.grid(1); if (i < x.length) x[i] = scale(x[i]); }, { cache: true, constants: { scale } });
const t0 = performance.now();
k.compile([array(f32, 1)]);
console.log(JSON.stringify({ ...k.cacheStats, ms: performance.now() - t0 }));
`;

const printChild = `
import { jit, cuda, f32 } from ${JSON.stringify(DIST)};
import { Device } from ${JSON.stringify(CORE_DIST)};
const device = Device.get(0).setCurrent();
const k = jit((x) => { const i = cuda.grid(1); if (i < 3) { console.log('thread', i, 'of', x.length, x[i]); cuda.printf('%d|%.2f\\n', i, x[i]); } });
k.launch({ grid: 1, block: 32 }, new Float32Array([0.5, 1.25, 2]));
device.synchronize(); // the device's printf buffer is written out at a synchronization
`;

function runChild(script: string, env: NodeJS.ProcessEnv): { out: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, ...env },
  });
  return { out: `${r.stdout}${r.stderr}`, status: r.status };
}

describeGpu('JIT breadth beyond one process', () => {
  let cacheDir: string;
  beforeAll(() => {
    Device.get(0).setCurrent();
    cacheDir = mkdtempSync(join(tmpdir(), 'cuda-js-jit-cache-'));
  });
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('the disk cache: a miss, then a hit in a new process, and a miss when a callee changes', () => {
    expect(existsSync(DIST), `${DIST} is missing: build first`).toBe(true);
    const env = { CUDA_JS_CACHE_DIR: cacheDir };
    const stats = (script: string) => {
      const r = runChild(script, env);
      expect(r.status, r.out).toBe(0);
      return JSON.parse(r.out.trim().split('\n').pop()!) as { hits: number; misses: number; ms: number };
    };
    expect(stats(cacheChild(2))).toMatchObject({ hits: 0, misses: 1 });
    const hit = stats(cacheChild(2));
    expect(hit).toMatchObject({ hits: 1, misses: 0 });
    console.log(`disk-cache hit in a new process: ${hit.ms.toFixed(2)} ms`);
    expect(stats(cacheChild(3))).toMatchObject({ hits: 0, misses: 1 }); // only the device function changed
  });

  it('printf and console.log print from the GPU at the next synchronization', () => {
    const r = runChild(printChild, {});
    expect(r.status, r.out).toBe(0);
    for (const [i, v] of [
      [0, '0.5'],
      [1, '1.25'],
      [2, '2'],
    ] as const) {
      expect(r.out).toContain(`thread ${i} of 3 ${v}`);
      expect(r.out).toContain(`${i}|${Number(v).toFixed(2)}`);
    }
  });

  it('a grid-syncing kernel is launched cooperatively, and a grid too large to be co-resident is refused before the launch', () => {
    const k = jit((a: Int32Array, b: Int32Array) => {
      const i = cuda.grid(1);
      if (i < a.length) a[i] = 1;
      cuda.cg.thisGrid().sync();
      if (i < a.length) b[i] = a[i]! + a[(i + 1) % a.length]!;
    });
    const a = new Int32Array(1024);
    process.removeAllListeners('warning');
    const b = new Int32Array(1024);
    k.launch({ grid: 4, block: 256 }, a, b);
    expect(b.every((v) => v === 2)).toBe(true);
    expect(() => k.launch({ grid: 1_000_000, block: 1024 }, new Int32Array(4), new Int32Array(4))).toThrow(
      /co-resident/,
    );
  });
});
