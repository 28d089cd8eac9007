// Barriers of the block, the warp and the grid, the block votes, and the
// fences: what each is in NVVM IR, and the PTX that proves it (bar.sync,
// bar.red, bar.warp.sync, membar, the grid barrier's release/acquire).
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { Expr } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  barrier,
  binary,
  blockVote,
  compare,
  convert,
  exprStmt,
  fence,
  i32,
  i64,
  special,
  u32,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';
import { GRID_BARRIER_SYMBOL } from './grid-barrier.js';

const tid = (): Expr => convert('i64', special('tid.x'));

/** out[tid] = x[tid]; <barrier>; out[tid + 1] = x[tid]... a kernel whose order across the barrier matters. */
function barrierKernel(name: string, scope: 'block' | 'warp' | 'grid', mask?: Expr, times = 1) {
  const k = new KernelBuilder(name);
  const out = k.array('out', 'f32');
  const stores = Array.from({ length: times }, (_, i) => [
    barrier(scope, mask),
    exprStmt(out.store([binary('add', tid(), i64(i + 1))], out.load(tid()))),
  ]).flat();
  return k.build([exprStmt(out.store([tid()], convert('f32', special('tid.x')))), ...stores]);
}

function blockVotesKernel() {
  const k = new KernelBuilder('block_votes');
  const out = k.array('out', 'i32');
  const p = compare('lt', special('tid.x'), i32(7));
  const votes = [blockVote('count', p), blockVote('and', p), blockVote('or', p)];
  return k.build(votes.map((v, i) => exprStmt(out.store([i64(i)], v.type === 'bool' ? convert('i32', v) : v))));
}

function fencesKernel() {
  const k = new KernelBuilder('fences');
  const out = k.array('out', 'i32');
  const store = (i: number) => exprStmt(out.store([i64(i)], i32(i)));
  return k.build([store(0), fence('block'), store(1), fence('device'), store(2), fence('system'), store(3)]);
}

it('calls llvm.nvvm.barrier0 for a block barrier and llvm.nvvm.bar.warp.sync with the mask (all lanes by default) for a warp barrier', () => {
  expect(lowerKernel(barrierKernel('block_barrier', 'block'))).toContain('call void @llvm.nvvm.barrier0()');
  expect(lowerKernel(barrierKernel('warp_barrier', 'warp', u32(0x0000ffff)))).toContain(
    'call void @llvm.nvvm.bar.warp.sync(i32 65535)',
  );
  expect(lowerKernel(barrierKernel('warp_barrier_all', 'warp'))).toContain(
    'call void @llvm.nvvm.bar.warp.sync(i32 -1)',
  );
  expect(() => lowerKernel(barrierKernel('masked_block', 'block', u32(1)))).toThrow(/block barrier with a mask/);
});

it('counts, ands and ors a block’s predicates with llvm.nvvm.barrier0.popc/and/or', () => {
  const ir = lowerKernel(blockVotesKernel());
  expect(ir).toMatch(/(%t\d+) = zext i1 %t\d+ to i32\n\s+%t\d+ = call i32 @llvm\.nvvm\.barrier0\.popc\(i32 \1\)/);
  expect(ir).toMatch(/(%t\d+) = call i32 @llvm\.nvvm\.barrier0\.and\(i32 %t\d+\)\n\s+%t\d+ = icmp ne i32 \1, 0/);
  expect(ir).toMatch(/(%t\d+) = call i32 @llvm\.nvvm\.barrier0\.or\(i32 %t\d+\)\n\s+%t\d+ = icmp ne i32 \1, 0/);
});

it('fences with llvm.nvvm.membar.cta, .gl and .sys', () => {
  const ir = lowerKernel(fencesKernel());
  expect([...ir.matchAll(/call void @llvm\.nvvm\.membar\.(\w+)\(\)/g)].map((m) => m[1])).toEqual(['cta', 'gl', 'sys']);
});

it('writes the grid barrier on one zero-initialised global counter, whatever the number of barriers', () => {
  const ir = lowerKernel(barrierKernel('grid_barrier', 'grid', undefined, 2));
  expect(
    ir.match(
      new RegExp(
        `^@${GRID_BARRIER_SYMBOL.replace('$', '\\$')} = internal addrspace\\(1\\) global i32 0, align 4$`,
        'gm',
      ),
    ),
  ).toHaveLength(1);
  expect(ir.match(/call void @llvm\.nvvm\.barrier0\(\)/g)).toHaveLength(4);
  // thread (0,0,0) arrives: block (0,0,0) with 0x80000000 - (nblocks - 1), the others with 1.
  expect(ir).toMatch(
    /(%t\d+) = sub i32 (%t\d+), 1\n\s+(%t\d+) = sub i32 -2147483648, \1\n(?:.*\n)*?\s+(%t\d+) = icmp eq i32 %t\d+, 0\n\s+(%t\d+) = select i1 \4, i32 \3, i32 1/,
  );
  expect(ir).toMatch(
    /call i32 asm sideeffect "atom\.release\.gpu\.global\.add\.u32 \$0, \[\$1\], \$2;", "=r,l,r,~\{memory\}"\(i32 addrspace\(1\)\* @grid\$barrier, i32 %t\d+\)/,
  );
  // ... and waits until the top bit differs from the one it saw.
  expect(ir).toMatch(
    /(grid\.spin\.\d+):\n\s+(%t\d+) = call i32 asm sideeffect "ld\.acquire\.gpu\.global\.u32 \$0, \[\$1\];", "=r,l,~\{memory\}"\(i32 addrspace\(1\)\* @grid\$barrier\)\n\s+(%t\d+) = xor i32 \2, (%t\d+)\n\s+(%t\d+) = and i32 \3, -2147483648\n\s+(%t\d+) = icmp ne i32 \5, 0\n\s+br i1 \6, label %grid\.leave\.\d+, label %\1/,
  );
});

describeWhen(compileRequirements, 'barriers and fences through libNVVM and ptxas', () => {
  it('assembles block and warp barriers to bar.sync 0 and bar.warp.sync', () => {
    expect(compileAndAssemble(barrierKernel('block_barrier', 'block')).ptx).toMatch(/\bbar\.sync\s+0;/);
    expect(compileAndAssemble(barrierKernel('warp_barrier', 'warp', u32(0xff))).ptx).toMatch(
      /\bbar\.warp\.sync\s+255;/,
    );
  });

  it('assembles the block votes to bar.red.popc.u32, bar.red.and.pred and bar.red.or.pred', () => {
    const { ptx } = compileAndAssemble(blockVotesKernel());
    expect(ptx).toMatch(/bar\.red\.popc\.u32\s+%r\d+, 0, %p\d+;/);
    expect(ptx).toMatch(/bar\.red\.and\.pred\s+%p\d+, 0, %p\d+;/);
    expect(ptx).toMatch(/bar\.red\.or\.pred\s+%p\d+, 0, %p\d+;/);
  });

  it('assembles the fences to membar.cta, membar.gl and membar.sys, between the stores', () => {
    const { ptx } = compileAndAssemble(fencesKernel());
    const order = [...ptx.matchAll(/^\s*(st\.global\.u32|membar\.\w+)/gm)].map((m) => m[1]);
    expect(order).toEqual([
      'st.global.u32',
      'membar.cta',
      'st.global.u32',
      'membar.gl',
      'st.global.u32',
      'membar.sys',
      'st.global.u32',
    ]);
  });

  it('assembles the grid barrier: a .global counter, bar.sync, a fenced atom.release.gpu and a spin on ld.acquire.gpu', () => {
    const { ptx } = compileAndAssemble(barrierKernel('grid_barrier', 'grid', undefined, 2));
    expect(ptx.match(/\.global \.align 4 \.u32 grid\$barrier;/g)).toHaveLength(1);
    expect(
      ptx.match(/membar\.gl;\n(?:.*\n){0,3}?\s*atom\.release\.gpu\.global\.add\.u32 %r\d+, \[%rd\d+\], %r\d+;/g),
    ).toHaveLength(2);
    expect(ptx.match(/ld\.acquire\.gpu\.global\.u32 %r\d+, \[%rd\d+\];/g)).toHaveLength(2);
    expect(ptx.match(/\bbar\.sync\s+0;/g)).toHaveLength(4);
  });
});
