import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, test } from 'vitest';
import type { SpecialRegister } from '../typing/typed-ir.js';
import { FaultSites } from './fault-sites.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  compare,
  expr,
  get,
  globalIndexX,
  i32,
  load,
  set,
  special,
  store,
  when,
} from './ir-builders.test-support.js';
import { generateKernelSource } from './kernel-source.js';
import { SimulatedKernel } from './simulated-kernel.js';

const REGISTERS: SpecialRegister[] = [
  'tid.x',
  'tid.y',
  'tid.z',
  'ntid.x',
  'ntid.y',
  'ntid.z',
  'ctaid.x',
  'ctaid.y',
  'ctaid.z',
  'nctaid.x',
  'nctaid.y',
  'nctaid.z',
  'laneid',
  'warpsize',
];

/** Every thread writes its special registers to out[linear thread index][register]. */
function registersKernel(): SimulatedKernel {
  const b = new KernelBuilder();
  const out = b.array('out', 'i32', 2, 'C');
  const linear = b.local('linear', 'i32');
  const r = (name: SpecialRegister) => special(name);
  // ((ctaid.z * nctaid.y + ctaid.y) * nctaid.x + ctaid.x) * threadsPerBlock + (tid.z * ntid.y + tid.y) * ntid.x + tid.x
  const block = binary(
    'add',
    binary('mul', binary('add', binary('mul', r('ctaid.z'), r('nctaid.y')), r('ctaid.y')), r('nctaid.x')),
    r('ctaid.x'),
  );
  const perBlock = binary('mul', binary('mul', r('ntid.x'), r('ntid.y')), r('ntid.z'));
  const thread = binary(
    'add',
    binary('mul', binary('add', binary('mul', r('tid.z'), r('ntid.y')), r('tid.y')), r('ntid.x')),
    r('tid.x'),
  );
  return new SimulatedKernel(
    b.build([
      expr(set(linear, binary('add', binary('mul', block, perBlock), thread))),
      ...REGISTERS.map((name, k) => expr(store(out, 'i32', [get(linear, 'i32'), i32(k)], r(name)))),
    ]),
    NO_POSITIONS,
  );
}

describe('the grid and block loops', () => {
  for (const [grid, block] of [
    [
      [3, 2, 1],
      [4, 2, 1],
    ],
    [
      [2, 2, 2],
      [2, 3, 4],
    ],
    [
      [1, 1, 3],
      [40, 1, 1],
    ],
  ] as [[number, number, number], [number, number, number]][]) {
    test(`grid [${grid}] × block [${block}]: every thread once, in order z, y, x, with its registers`, () => {
      const threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
      const host = new Int32Array(threads * REGISTERS.length);
      registersKernel().run(grid, block, [
        StridedMemoryView.fromBuffer(host, { dtype: 'int32', shape: [threads, REGISTERS.length] }),
      ]);
      let n = 0;
      for (let bz = 0; bz < grid[2]; bz++)
        for (let by = 0; by < grid[1]; by++)
          for (let bx = 0; bx < grid[0]; bx++)
            for (let tz = 0; tz < block[2]; tz++)
              for (let ty = 0; ty < block[1]; ty++)
                for (let tx = 0; tx < block[0]; tx++) {
                  const lane = ((tz * block[1] + ty) * block[0] + tx) % 32;
                  const expected = [tx, ty, tz, ...block, bx, by, bz, ...grid, lane, 32];
                  expect([...host.subarray(n * REGISTERS.length, (n + 1) * REGISTERS.length)]).toEqual(expected);
                  n++;
                }
    });
  }

  test('threads run one after another in launch order', () => {
    // out[k] = order in which thread k ran, through a counter in out[n]
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const n = b.scalar('n', 'i32');
    const i = b.local('i', 'i32');
    const counter = load(out, 'i32', [get(n, 'i32')]);
    const kernel = b.build([
      expr(set(i, globalIndexX())),
      expr(store(out, 'i32', [get(i, 'i32')], counter)),
      expr(store(out, 'i32', [get(n, 'i32')], binary('add', counter, i32(1)))),
    ]);
    const host = new Int32Array(9);
    new SimulatedKernel(kernel, NO_POSITIONS).run([2, 1, 1], [4, 1, 1], [host, 8]);
    expect([...host]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('the generated source', () => {
  test('is made once, with the body inline in the thread loop', () => {
    const b = new KernelBuilder();
    const n = b.scalar('n', 'i32');
    const y = b.array('y', 'f32');
    const i = b.local('i', 'i32');
    const kernel = b.build(
      [
        expr(set(i, globalIndexX())),
        when(compare('lt', get(i, 'i32'), get(n, 'i32')), [
          expr(store(y, 'f32', [get(i, 'i32')], { op: 'const', type: 'f32', value: 1 })),
        ]),
      ],
      'fill',
    );
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.source).toContain('return function simulate_fill(');
    expect(sim.source).toMatch(
      /thread: for \(tidX = 0; tidX < ntidX; tidX\+\+\) \{\n\s+let l0 = p0, l1 = 0;\n\s+\(l1 = /,
    );
    // The index is a number: no bigint on the hot path of an i32-indexed kernel.
    expect(sim.source).not.toMatch(/BigInt/);
    const source = sim.source;
    sim.run([1, 1, 1], [4, 1, 1], [4, new Float32Array(4)]);
    expect(sim.source).toBe(source);
  });

  test('fault sites are numbered as the generator meets them', () => {
    const b = new KernelBuilder();
    const y = b.array('y', 'i64');
    const kernel = b.build([
      expr(store(y, 'i64', [i32(0)], binary('div', load(y, 'i64', [i32(1)]), load(y, 'i64', [i32(2)])))),
    ]);
    const sites = new FaultSites();
    const source = generateKernelSource(kernel, sites);
    expect(sites.size).toBe(4);
    expect([0, 1, 2, 3].map((k) => sites.get(k).kind)).toEqual(['bounds', 'bounds', 'division', 'bounds']);
    expect(source).toContain('divisionByZero(2)');
  });

  test('a kernel symbol that is a JS keyword is still a valid function name', () => {
    const kernel = new KernelBuilder().build([], 'delete');
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.source).toContain('function simulate_delete(');
    sim.run([2, 1, 1], [2, 1, 1], []);
  });
});

describe('the two modes', () => {
  test('a kernel with collectives is a generator per thread, each collective a yield inside its expression', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const kernel = b.build([
      { op: 'barrier', scope: 'block' },
      expr(
        store(
          out,
          'i32',
          [globalIndexX()],
          binary('add', i32(1), {
            op: 'vote',
            type: 'i32',
            scope: 'block',
            mode: 'count',
            predicate: { op: 'const', type: 'bool', value: true },
          }),
        ),
      ),
    ]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.mode).toEqual({ lockstep: true, grid: false });
    expect(sim.source).toContain('function* thread(s, lin, tidX, tidY, tidZ, ctaidX, ctaidY, ctaidZ, q, blk) {');
    expect(sim.source).toContain('(q.c0(s, 0), yield);');
    expect(sim.source).toMatch(/\(1 \+ \(q\.c2\(s, \d+, 0, true\), yield\) \| 0\)/);
    const host = new Int32Array(6);
    sim.run([2, 1, 1], [3, 1, 1], [host]);
    expect([...host]).toEqual([4, 4, 4, 4, 4, 4]);
  });

  test('declared collectives choose lockstep mode even where the IR has none; shared memory alone keeps the fast loop', () => {
    const b = new KernelBuilder();
    b.collectives = { block: true };
    expect(new SimulatedKernel(b.build([]), NO_POSITIONS).mode).toEqual({ lockstep: true, grid: false });
    const g = new KernelBuilder();
    g.collectives = { grid: true };
    expect(new SimulatedKernel(g.build([]), NO_POSITIONS).mode).toEqual({ lockstep: true, grid: true });
    const m = new KernelBuilder();
    const s = m.shared('s', 'f32', 4);
    const fast = new SimulatedKernel(
      m.build([
        expr({
          op: 'store',
          type: 'f32',
          ref: { array: s, space: 'shared', indices: [convertI64(special('tid.x'))] },
          value: { op: 'const', type: 'f32', value: 1 },
        }),
      ]),
      NO_POSITIONS,
    );
    expect(fast.mode.lockstep).toBe(false);
    expect(fast.source).toContain('blk.begin(ctaidX, ctaidY, ctaidZ);');
    expect(fast.source).toContain('lin = (tidZ * ntidY + tidY) * ntidX + tidX;');
    expect(fast.source).toContain('r0.write(');
    fast.run([2, 1, 1], [4, 1, 1], []);
  });
});

const convertI64 = (e: ReturnType<typeof special>) => ({ op: 'convert', type: 'i64', operand: e }) as const;
