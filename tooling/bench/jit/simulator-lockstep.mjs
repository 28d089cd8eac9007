#!/usr/bin/env node
// Time per thread of @cuda-js/jit's CPU simulator in lockstep mode (SimulatedKernel with
// block barriers, shared-memory race checks on), for the shared-memory tree reduction
//   sdata[tid] = x[i]; syncthreads();
//   for (s = 64; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; syncthreads(); }
//   if (tid == 0) out[blockIdx.x] = sdata[0];
// in f32 over 8192 elements: 64 blocks of 128 threads, 8 barrier steps. Anchor: numba's
// simulator takes 6.2 ms per thread on this kernel; the goal is at most 5 µs per thread.
// As simulated-kernel.mjs beside it: the typed IR built by hand, the simulator's TypeScript
// source loaded through vite (no build needed).
//   node tooling/bench/jit/simulator-lockstep.mjs [--runs 20] [--rounds 7] [--json]
import { nsPerThread, numberArg as arg, sourceServer } from './bench-util.mjs';

const RUNS = arg('runs', 20);
const ROUNDS = arg('rounds', 7);
const N = 8192;
const BLOCK = 128;

const server = await sourceServer();
let result;
try {
  const { SimulatedKernel } = await server.ssrLoadModule('/packages/jit/src/simulate/simulated-kernel.ts');
  const { arrayType } = await server.ssrLoadModule('/packages/jit/src/typing/jit-types.ts');

  const local = (id, type) => ({ op: 'local', type, id });
  const special = (register) => ({ op: 'special', type: 'i32', register });
  const i32 = (value) => ({ op: 'const', type: 'i32', value });
  const bin = (operator, left, right) => ({ op: 'binary', type: left.type, operator, left, right });
  const cmp = (operator, left, right) => ({
    op: 'compare',
    type: 'bool',
    operator,
    operandType: left.type,
    left,
    right,
  });
  const wide = (e) => ({ op: 'convert', type: 'i64', operand: e });
  const sload = (at) => ({ op: 'load', type: 'f32', ref: { array: 0, space: 'shared', indices: [wide(at)] } });
  const sstore = (at, value) => ({
    op: 'store',
    type: 'f32',
    ref: { array: 0, space: 'shared', indices: [wide(at)] },
    value,
  });
  const stmt = (expr) => ({ op: 'expr', expr });
  const sync = { op: 'barrier', scope: 'block' };
  const tid = local(0, 'i32');
  const s = local(1, 'i32');
  const kernel = {
    symbol: 'reduce',
    params: [
      {
        kind: 'array',
        name: 'x',
        type: arrayType('f32', 1, 'C', true),
        use: { shape: true, strides: false, written: false },
      },
      {
        kind: 'array',
        name: 'out',
        type: arrayType('f32', 1, 'C'),
        use: { shape: true, strides: false, written: true },
      },
    ],
    locals: [
      { name: 'tid', type: 'i32' },
      { name: 's', type: 'i32' },
    ],
    memories: [{ space: 'shared', name: 'sdata', dtype: 'f32', shape: [BLOCK], dynamic: false }],
    collectives: { block: true, warp: false, grid: false },
    body: [
      stmt({ op: 'assign', type: 'i32', id: 0, value: special('tid.x') }),
      stmt(
        sstore(tid, {
          op: 'load',
          type: 'f32',
          ref: { array: 0, indices: [wide(bin('add', bin('mul', special('ctaid.x'), special('ntid.x')), tid))] },
        }),
      ),
      sync,
      stmt({ op: 'assign', type: 'i32', id: 1, value: i32(BLOCK / 2) }),
      {
        op: 'loop',
        id: 0,
        test: cmp('gt', s, i32(0)),
        body: [
          {
            op: 'if',
            test: cmp('lt', tid, s),
            then: [
              stmt(
                sstore(tid, {
                  op: 'binary',
                  type: 'f32',
                  operator: 'add',
                  left: sload(tid),
                  right: sload(bin('add', tid, s)),
                }),
              ),
            ],
            otherwise: [],
          },
          sync,
        ],
        update: [stmt({ op: 'assign', type: 'i32', id: 1, value: bin('shr', s, i32(1)) })],
        postTest: undefined,
      },
      {
        op: 'if',
        test: cmp('eq', tid, i32(0)),
        then: [
          stmt({
            op: 'store',
            type: 'f32',
            ref: { array: 1, indices: [wide(special('ctaid.x'))] },
            value: sload(i32(0)),
          }),
        ],
        otherwise: [],
      },
    ],
  };
  const locator = { position: () => ({ file: '<bench>', line: 1, column: 1, snippet: '' }) };
  const sim = new SimulatedKernel(kernel, locator);
  const x = Float32Array.from({ length: N }, (_, k) => (k % 13) * 0.25);
  const out = new Float32Array(N / BLOCK);
  const grid = [N / BLOCK, 1, 1];
  const block = [BLOCK, 1, 1];
  sim.run(grid, block, [x, out]);
  for (let b = 0; b < N / BLOCK; b++) {
    // The same tree in f32, as the reference.
    const v = Array.from(x.subarray(b * BLOCK, (b + 1) * BLOCK));
    for (let step = BLOCK / 2; step > 0; step >>= 1)
      for (let t = 0; t < step; t++) v[t] = Math.fround(v[t] + v[t + step]);
    if (out[b] !== v[0]) throw new Error(`out[${b}] is ${out[b]}, expected ${v[0]}`);
  }
  for (let r = 0; r < 5; r++) sim.run(grid, block, [x, out]);
  const median = nsPerThread(() => sim.run(grid, block, [x, out]), { runs: RUNS, rounds: ROUNDS, threads: N });
  result = {
    kernel: 'shared-memory tree reduction (8 barriers, race checks on)',
    n: N,
    block: BLOCK,
    runs: RUNS,
    rounds: ROUNDS,
    runtime: `node ${process.version}`,
    nsPerThread: median,
    usPerLaunch: (median * N) / 1000,
  };
} finally {
  await server.close();
}
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(
    `SimulatedKernel, lockstep mode, ${result.kernel}, n = ${result.n} (blocks of ${result.block}), ${result.runtime}; median of ${result.rounds} rounds of ${result.runs} launches`,
  );
  console.log(
    `  ${(result.nsPerThread / 1000).toFixed(3)} µs per thread (${result.usPerLaunch.toFixed(0)} µs per launch)`,
  );
  console.log('  goal: at most 5 µs per thread (numba-cuda simulator: 6.2 ms per thread)');
}
