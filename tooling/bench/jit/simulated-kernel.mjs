#!/usr/bin/env node
// Time per thread of @cuda-js/jit's CPU simulator (SimulatedKernel) alone, for axpy
//   i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]
// in f32 with n = 65536 (256 blocks of 256 threads), and for the compound form
// y[i] += a * x[i]. The typed IR is built by hand as the typer makes it, so
// parsing and typing are not measured (simulator.mjs beside this file times
// the whole jit() path). The simulator's TypeScript source is loaded through
// vite, as the tests load it, so no build is needed; the generated kernel is
// plain JavaScript made with new Function, which vite does not touch.
//   node tooling/bench/jit/simulated-kernel.mjs [--n 65536] [--runs 200] [--rounds 7] [--json]
import { nsPerThread, numberArg as arg, sourceServer } from './bench-util.mjs';

const N = arg('n', 65536);
const RUNS = arg('runs', 200);
const ROUNDS = arg('rounds', 7);
const BLOCK = 256;

const server = await sourceServer();
let result;
try {
  const { SimulatedKernel } = await server.ssrLoadModule('/packages/jit/src/simulate/simulated-kernel.ts');
  const { arrayType } = await server.ssrLoadModule('/packages/jit/src/typing/jit-types.ts');

  // params: a (f32, local 0), n (i32, local 1), x, y; local 2 is i, local 3 the typer's i64 index temporary.
  const local = (id, type) => ({ op: 'local', type, id });
  const special = (register) => ({ op: 'special', type: 'i32', register });
  const i = local(2, 'i32');
  const index = { op: 'convert', type: 'i64', operand: i };
  const load = (array, at = index) => ({ op: 'load', type: 'f32', ref: { array, indices: [at] } });
  const ax = { op: 'binary', type: 'f32', operator: 'mul', left: local(0, 'f32'), right: load(2) };
  const kernelOf = (symbol, update) => ({
    symbol,
    params: [
      { kind: 'scalar', name: 'a', type: 'f32', local: 0 },
      { kind: 'scalar', name: 'n', type: 'i32', local: 1 },
      {
        kind: 'array',
        name: 'x',
        type: arrayType('f32', 1, 'C', true),
        use: { shape: false, strides: false, written: false },
      },
      {
        kind: 'array',
        name: 'y',
        type: arrayType('f32', 1, 'C'),
        use: { shape: false, strides: false, written: true },
      },
    ],
    locals: [
      { name: 'a', type: 'f32' },
      { name: 'n', type: 'i32' },
      { name: 'i', type: 'i32' },
      { name: '$index', type: 'i64' },
    ],
    body: [
      {
        op: 'expr',
        expr: {
          op: 'assign',
          type: 'i32',
          id: 2,
          value: {
            op: 'binary',
            type: 'i32',
            operator: 'add',
            left: { op: 'binary', type: 'i32', operator: 'mul', left: special('ctaid.x'), right: special('ntid.x') },
            right: special('tid.x'),
          },
        },
      },
      {
        op: 'if',
        test: { op: 'compare', type: 'bool', operator: 'lt', operandType: 'i32', left: i, right: local(1, 'i32') },
        then: [{ op: 'expr', expr: update }],
        otherwise: [],
      },
    ],
  });
  // y[i] = a * x[i] + y[i]
  const plain = {
    op: 'store',
    type: 'f32',
    ref: { array: 3, indices: [index] },
    value: { op: 'binary', type: 'f32', operator: 'add', left: ax, right: load(3) },
  };
  // y[i] += a * x[i], as the typer writes a compound store: the index computed once, into an i64 temporary
  const at = local(3, 'i64');
  const compound = {
    op: 'sequence',
    type: 'f32',
    effects: [{ op: 'assign', type: 'i64', id: 3, value: index }],
    value: {
      op: 'store',
      type: 'f32',
      ref: { array: 3, indices: [at] },
      value: { op: 'binary', type: 'f32', operator: 'add', left: load(3, at), right: ax },
    },
  };
  const kernels = [
    ['axpy: y[i] = a * x[i] + y[i]', kernelOf('axpy', plain), (a, x, y) => Math.fround(Math.fround(a * x) + y)],
    ['axpy: y[i] += a * x[i]', kernelOf('axpy_compound', compound), (a, x, y) => Math.fround(y + Math.fround(a * x))],
  ];

  const locator = { position: () => ({ file: '<bench>', line: 1, column: 1, snippet: '' }) };
  const grid = [Math.ceil(N / BLOCK), 1, 1];
  const block = [BLOCK, 1, 1];
  const threads = grid[0] * BLOCK;
  const x = new Float32Array(N).map((_, k) => k * 0.5);
  result = { n: N, block: BLOCK, runs: RUNS, rounds: ROUNDS, runtime: `node ${process.version}`, results: [] };
  for (const [name, kernel, reference] of kernels) {
    const sim = new SimulatedKernel(kernel, locator);
    const y = new Float32Array(N).fill(1);
    const args = [2, N, x, y];
    // Check once against a plain loop, then warm up.
    sim.run(grid, block, args);
    for (let k = 0; k < N; k++) {
      const expected = reference(2, x[k], 1);
      if (y[k] !== expected) throw new Error(`${name}: y[${k}] is ${y[k]}, expected ${expected}`);
    }
    for (let r = 0; r < 50; r++) sim.run(grid, block, args);
    const median = nsPerThread(() => sim.run(grid, block, args), { runs: RUNS, rounds: ROUNDS, threads });
    result.results.push({ kernel: name, nsPerThread: median, usPerLaunch: (median * threads) / 1000 });
  }
} finally {
  await server.close();
}
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(
    `SimulatedKernel, f32, n = ${result.n} (blocks of ${result.block}), ${result.runtime}; median of ${result.rounds} rounds of ${result.runs} launches`,
  );
  for (const r of result.results)
    console.log(
      `  ${r.kernel.padEnd(30)} ${r.nsPerThread.toFixed(2)} ns per thread (${r.usPerLaunch.toFixed(1)} µs per launch)`,
    );
  console.log('  goal: at most 100 ns per thread');
}
