#!/usr/bin/env node
// Runs every kernel of kernels.mjs in the cuda-js simulator on small host
// arrays and checks its result as the GPU parts do: the reduction (2 blocks
// of 256 over 5000 elements: the unrolled loop and its tail), the matmul
// with each tile (n = 64), and part 4's block tree reduction. No GPU needed;
// a quick look that the benchmark's kernels type and compute before a GPU
// run. With --source the packages' TypeScript sources are loaded through
// vite (as the tests load them), so no build is needed.
//   node tooling/bench/jit-breadth/sim-check.mjs [--source]   (prints one line per kernel; exit 1 on a failure)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceServer } from '../jit/bench-util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let server;
let load = (file) => import(join(here, file));
let loadStack = () => import('cuda-js');
if (process.argv.includes('--source')) {
  server = await sourceServer();
  load = (file) => server.ssrLoadModule(`/tooling/bench/jit-breadth/${file}`);
  loadStack = () => server.ssrLoadModule('/packages/cuda-js/src/index.ts');
}

let failed = 0;
function report(name, fn) {
  const t0 = performance.now();
  let verdict;
  try {
    verdict = fn() ?? 'ok';
  } catch (error) {
    verdict = `${error?.name ?? 'Error'}: ${String(error?.message ?? error).split('\n')[0]}`;
  }
  if (verdict !== 'ok') failed++;
  console.log(
    `${verdict === 'ok' ? 'ok  ' : 'FAIL'} ${name} (${(performance.now() - t0).toFixed(0)} ms)${verdict === 'ok' ? '' : `: ${verdict}`}`,
  );
}

try {
  const k = await load('kernels.mjs');
  const { i32 } = await loadStack();
  const simulator = { target: 'simulator' };

  report('reduce_sum, 2 blocks of 256 over 5000 elements', () => {
    const x = k.reduceInput(5000);
    const out = new Float32Array(1);
    k.reduceKernel(simulator).launch({ grid: 2, block: k.REDUCE_BLOCK }, x, out);
    const check = k.checkSum(out[0], k.hostSum(x));
    return check.ok ? 'ok' : check.error;
  });
  for (const tile of k.TILES) {
    report(`matmul_tiled${tile}, n = 64`, () => {
      const n = 64;
      const { A, B } = k.matmulInputs(n);
      const C = new Float32Array(n * n).fill(Number.NaN);
      k.matmulKernel(tile, simulator).launch({ grid: [n / tile, n / tile], block: [tile, tile] }, A, B, C, i32(n));
      const check = k.checkMatmul(C, A, B, n);
      return check.ok ? 'ok' : check.error;
    });
  }
  report(`block_tree_sum, 4 blocks of ${k.SIM_BLOCK}`, () => {
    const x = k.reduceInput(4 * k.SIM_BLOCK);
    const out = new Float32Array(4);
    k.simulatorReduceKernel().launch({ grid: 4, block: k.SIM_BLOCK }, x, out);
    for (let b = 0; b < 4; b++) {
      let expected = 0;
      for (let i = b * k.SIM_BLOCK; i < (b + 1) * k.SIM_BLOCK; i++) expected += x[i];
      if (out[b] !== expected) return `out[${b}] = ${out[b]}, expected ${expected}`;
    }
    return 'ok';
  });
} finally {
  await server?.close();
}
process.exitCode = failed ? 1 : 0;
