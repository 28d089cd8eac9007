import { describe, expect, it } from 'vitest';
import { JIT, NUMBA, NVCC, buildReport, cacheHitProblem, summarizeCacheSide } from './report-lib.mjs';

const host = {
  date: '2026-12-01T00:00:00Z',
  gpu: 'NVIDIA H200, 580',
  cpu: 'Xeon',
  cores: 16,
  node: '20.20.2',
  python: 'python 3.12.3, numba-cuda 0.30.4',
  nvcc: 'release 13.0',
  arch: 'sm_90',
};
const reduceRow = (gbPerS: number) => ({
  ms: 1073.741824 / gbPerS,
  gbPerS,
  samplesMs: [1],
  ok: true,
  got: 2013265920,
  relError: 0,
});
const mmRow = (tflops: number) => ({
  ms: 137.438953472 / tflops,
  tflops,
  samplesMs: [1],
  ok: true,
  checked: 64,
  maxError: 0.02,
});
const jsHit = (compileMs: number) => ({
  kernel: 'reduce',
  ok: true,
  compileMs,
  jitMs: 0.2,
  cacheHits: 1,
  cacheMisses: 0,
  cacheFiles: 2,
  newFiles: 0,
  changedFiles: 0,
  wallMs: 500,
});
const nbHit = (compileMs: number) => ({
  kernel: 'reduce',
  ok: true,
  error: null,
  compileMs,
  firstCallMs: compileMs + 0.1,
  launchMs: 0.1,
  cacheHits: 1,
  cacheMisses: 0,
  wallMs: 2000,
});

/** Every part measured. */
function full() {
  return {
    host,
    reduceNode: {
      n: 1 << 28,
      reps: 20,
      batch: 5,
      grid: 4224,
      block: 256,
      sms: 132,
      results: { [JIT]: reduceRow(3900), [NVCC]: reduceRow(4100) },
      errors: {},
    },
    reduceNumba: { ...reduceRow(3800), n: 1 << 28, reps: 20, batch: 5, grid: 4224, block: 256, sms: 132 },
    matmulNode: {
      n: 4096,
      reps: 10,
      batch: 3,
      tiles: [16, 32],
      results: { [JIT]: { 16: mmRow(8), 32: mmRow(10) }, [NVCC]: { 16: mmRow(8), 32: mmRow(9) } },
      errors: {},
    },
    matmulNumba: { n: 4096, reps: 10, batch: 3, tiles: [16, 32], results: { 16: mmRow(7), 32: mmRow(6) }, errors: {} },
    cache: {
      runs: 3,
      kernels: {
        reduce: {
          'cuda-js': { miss: { ...jsHit(90), newFiles: 2 }, hits: [jsHit(3), jsHit(2), jsHit(4)] },
          'numba-cuda': {
            miss: { ...nbHit(800), cacheHits: 0, cacheMisses: 1 },
            hits: [nbHit(30), nbHit(20), nbHit(40)],
          },
        },
      },
    },
    simNode: { blocks: 64, block: 128, threads: 8192, barriers: 8, usPerThread: 0.5, firstUsPerThread: 5, ok: true },
    simNumba: { blocks: 8, block: 128, threads: 1024, barriers: 8, usPerThread: 6200, ok: true },
  };
}

const row = (markdown: string, start: string) => markdown.split('\n').find((l) => l.startsWith(`| ${start} |`));

describe('the JIT breadth report', () => {
  it('puts every kernel beside its anchors, with the ratios', () => {
    const { markdown, summary } = buildReport(full());
    expect(row(markdown, JIT)).toBe(`| ${JIT} | 3900 | 0.2753 | 0.95× | 1.03× | ok (relative error 0.0) |`);
    expect(row(markdown, NVCC)).toBe(`| ${NVCC} | 4100 | 0.2619 | 1.00× | 1.08× | ok (relative error 0.0) |`);
    expect(row(markdown, `${JIT} | 32×32`)).toBe(
      `| ${JIT} | 32×32 | 10.00 | 13.744 | 1.11× | 1.67× | ok (64 entries, worst 0.02 of the tolerance) |`,
    );
    expect(markdown).toContain(
      `Best tile: ${JIT} 32×32 (10.00 TFLOP/s); ${NVCC} 32×32 (9.00 TFLOP/s); ${NUMBA} 16×16 (7.00 TFLOP/s).`,
    );
    expect(row(markdown, 'reduce')).toBe('| reduce | 3.00 | 30.00 | 0.10× | 90.0 | 800.0 | 500 | 2000 |');
    expect(markdown).toContain("| cuda-js jit { target: 'simulator' } | 8192 | 0.5000 | 5.0000 | 0.000081× |");
    expect(markdown).not.toContain('Notes:');
    expect(summary.notes).toEqual([]);
    expect(summary.matmul.best[NUMBA]).toEqual({ tile: 16, tflops: 7 });
  });

  it('reports an anchor that cannot run as not measured, with the reason', () => {
    const parts = full();
    const noNvcc = 'Error: no cubin of kernels.cu: nvcc not on PATH';
    const noNumba = "numba-cuda unavailable: ModuleNotFoundError: No module named 'numba'";
    parts.reduceNode = {
      ...parts.reduceNode,
      results: { [JIT]: reduceRow(3900) } as never,
      errors: { [NVCC]: noNvcc },
    };
    parts.reduceNumba = { error: noNumba } as never;
    parts.matmulNode = {
      ...parts.matmulNode,
      results: { [JIT]: parts.matmulNode.results[JIT] } as never,
      errors: { [`${NVCC} 16×16`]: noNvcc, [`${NVCC} 32×32`]: noNvcc },
    };
    parts.matmulNumba = { error: noNumba } as never;
    parts.simNumba = { error: noNumba } as never;
    const { markdown, summary } = buildReport(parts);
    expect(row(markdown, JIT)).toBe(`| ${JIT} | 3900 | 0.2753 | — | — | ok (relative error 0.0) |`);
    expect(row(markdown, NVCC)).toBe(`| ${NVCC} | — | — | — | — | — |`);
    expect(summary.notes).toEqual(
      expect.arrayContaining([
        `not measured: reduction, ${NVCC}: ${noNvcc}`,
        `not measured: reduction, ${NUMBA}: ${noNumba}`,
        `not measured: matmul, ${NVCC}, 16×16: ${noNvcc}`,
        `not measured: matmul, ${NUMBA}, 32×32: ${noNumba}`,
        `not measured: simulator, ${NUMBA}: ${noNumba}`,
      ]),
    );
    expect(summary.reduce.numba).toEqual({ value: null, reason: noNumba });
    expect(markdown).toContain('Notes:');
  });

  it('says why a part whose process failed measured nothing', () => {
    const parts = full();
    parts.reduceNode = { error: 'exit 1: KernelTypeError: cuda.shared.array is not supported' } as never;
    parts.cache = { error: 'timed out after 420s' } as never;
    const { summary } = buildReport(parts);
    expect(summary.notes).toEqual(
      expect.arrayContaining([
        `not measured: reduction, ${JIT}: exit 1: KernelTypeError: cuda.shared.array is not supported`,
        `not measured: reduction, ${NVCC}: exit 1: KernelTypeError: cuda.shared.array is not supported`,
        'not measured: disk cache, reduce: timed out after 420s',
        'not measured: disk cache, matmul: timed out after 420s',
      ]),
    );
  });
});

describe('disk-cache hits', () => {
  it('count only runs that found the kernel in the cache', () => {
    expect(cacheHitProblem('cuda-js', jsHit(3))).toBeUndefined();
    expect(cacheHitProblem('cuda-js', { ...jsHit(3), newFiles: 1 })).toMatch(/a miss/);
    expect(cacheHitProblem(NUMBA, { ...nbHit(3), cacheFiles: 2, newFiles: 2 })).toMatch(
      /added 2 file\(s\) to NUMBA_CACHE_DIR: a miss/,
    );
    expect(cacheHitProblem('cuda-js', { ...jsHit(3), changedFiles: 1 })).toBeUndefined();
    expect(cacheHitProblem('cuda-js', { ...jsHit(3), cacheFiles: 0 })).toMatch(/nothing in CUDA_JS_CACHE_DIR/);
    expect(cacheHitProblem(NUMBA, { ...nbHit(3), cacheHits: 0, cacheMisses: 1 })).toBe(
      'numba counted 1 cache miss(es)',
    );
    expect(cacheHitProblem('cuda-js', { ...jsHit(3), cacheHits: 0, cacheMisses: 1 })).toBe(
      'kernel.cacheStats counted 1 cache miss(es)',
    );
    expect(cacheHitProblem(NUMBA, { ...nbHit(3), cacheHits: null, cacheMisses: null })).toBeUndefined();
    expect(cacheHitProblem(NUMBA, { error: 'exit 1: boom' })).toBe('exit 1: boom');
  });

  it('take the median of the hits and keep the reasons of the others', () => {
    const s = summarizeCacheSide('cuda-js', {
      miss: { ...jsHit(95), newFiles: 3 },
      hits: [jsHit(5), { ...jsHit(90), newFiles: 1 }, jsHit(3), jsHit(4)],
    });
    expect(s).toMatchObject({ missMs: 95, missWrote: true, runs: 4, hits: 3, hitMs: 4, samplesMs: [5, 3, 4] });
    expect(s.problems).toEqual(['the process added 1 file(s) to CUDA_JS_CACHE_DIR: a miss']);
  });

  it('are not measured where the cache was never written', () => {
    const empty = { ...jsHit(90), cacheFiles: 0 };
    const s = summarizeCacheSide('cuda-js', { miss: empty, hits: [empty, empty] });
    expect(s.value).toBeNull();
    expect(s.reason).toMatch(/nothing in CUDA_JS_CACHE_DIR/);
    expect(s.missWrote).toBe(false);
  });
});
