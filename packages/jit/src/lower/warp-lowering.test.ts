// Warp votes, match.sync and the lane masks: the NVVM intrinsic (or inline
// PTX) each is, and the PTX instruction libNVVM makes of it.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { Expr, LaneMask } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  compare,
  convert,
  exprStmt,
  i32,
  i64,
  lanemask,
  match,
  special,
  u32,
  warpVote,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const tid = (): Expr => convert('i64', special('tid.x'));

/** Every warp vote on `x[tid] > 0` under a run-time mask, stored to `out`. */
function votesKernel() {
  const k = new KernelBuilder('votes');
  const mask = k.scalar('mask', 'u32');
  const x = k.array('x', 'i32', 1, 'C', { written: false });
  const out = k.array('out', 'u32');
  const predicate = compare('gt', x.load(tid()), i32(0));
  const votes = [
    warpVote('all', mask.get, predicate),
    warpVote('any', mask.get, predicate),
    warpVote('eq', mask.get, predicate),
    warpVote('ballot', mask.get, predicate),
  ];
  return k.build(votes.map((v, i) => exprStmt(out.store([i64(i)], v.type === 'bool' ? convert('u32', v) : v))));
}

/** match any and all of x[tid] for each of `types`. */
function matchKernel(types: readonly ScalarName[]) {
  const k = new KernelBuilder('matches');
  const out = k.array('out', 'u32');
  const body = types.flatMap((type, i) => {
    const x = k.array(`x_${type}`, type, 1, 'C', { written: false });
    return [
      exprStmt(out.store([i64(2 * i)], match('any', u32(0xffffffff), x.load(tid())))),
      exprStmt(out.store([i64(2 * i + 1)], match('all', u32(0xffffffff), x.load(tid())))),
    ];
  });
  return k.build(body);
}

const MASKS: readonly LaneMask[] = ['activemask', 'lt', 'le', 'eq', 'ge', 'gt'];

function laneMaskKernel() {
  const k = new KernelBuilder('lanemasks');
  const out = k.array('out', 'u32');
  return k.build(MASKS.map((m, i) => exprStmt(out.store([i64(i)], lanemask(m)))));
}

it('calls llvm.nvvm.vote.{all,any,uni,ballot}.sync with the mask and the predicate', () => {
  const ir = lowerKernel(votesKernel());
  for (const v of ['all', 'any', 'uni'])
    expect(ir).toMatch(new RegExp(`call i1 @llvm\\.nvvm\\.vote\\.${v}\\.sync\\(i32 %t\\d+, i1 %t\\d+\\)`));
  expect(ir).toMatch(/call i32 @llvm\.nvvm\.vote\.ballot\.sync\(i32 %t\d+, i1 %t\d+\)/);
  expect(() =>
    lowerKernel(
      new KernelBuilder('bad_vote').build([exprStmt(warpVote('count', u32(1), compare('eq', i32(1), i32(1))))]),
    ),
  ).toThrow(/no warp scope/);
});

it('matches 32- and 64-bit values, floats by their bits; all gives the mask only when every lane agrees', () => {
  const ir = lowerKernel(matchKernel(['i32', 'u64', 'f32', 'f64']));
  expect(ir).toMatch(/call i32 @llvm\.nvvm\.match\.any\.sync\.i32\(i32 -1, i32 %t\d+\)/);
  expect(ir).toMatch(/call i32 @llvm\.nvvm\.match\.any\.sync\.i64\(i32 -1, i64 %t\d+\)/);
  expect(ir).toMatch(
    /(%t\d+) = bitcast float %t\d+ to i32\n\s+%t\d+ = call i32 @llvm\.nvvm\.match\.any\.sync\.i32\(i32 -1, i32 \1\)/,
  );
  expect(ir).toMatch(/bitcast double %t\d+ to i64/);
  expect(ir).toMatch(
    /(%t\d+) = call \{ i32, i1 \} @llvm\.nvvm\.match\.all\.sync\.i64p\(i32 -1, i64 %t\d+\)\n\s+(%t\d+) = extractvalue \{ i32, i1 \} \1, 0\n\s+(%t\d+) = extractvalue \{ i32, i1 \} \1, 1\n\s+%t\d+ = select i1 \3, i32 \2, i32 0/,
  );
});

it('reads %lanemask_* through NVVM’s special registers and activemask through volatile, convergent inline PTX', () => {
  const ir = lowerKernel(laneMaskKernel());
  for (const m of MASKS.slice(1)) expect(ir).toContain(`call i32 @llvm.nvvm.read.ptx.sreg.lanemask.${m}()`);
  expect(ir).toContain('call i32 asm sideeffect "activemask.b32 $0;", "=r"() convergent');
});

describeWhen(compileRequirements, 'votes, match and lane masks through libNVVM and ptxas', () => {
  it('assembles the votes to vote.sync.{all,any,uni}.pred and vote.sync.ballot.b32', () => {
    const { ptx } = compileAndAssemble(votesKernel());
    for (const v of ['all', 'any', 'uni'])
      expect(ptx).toMatch(new RegExp(`vote\\.sync\\.${v}\\.pred\\s+%p\\d+, %p\\d+, %r\\d+;`));
    expect(ptx).toMatch(/vote\.sync\.ballot\.b32\s+%r\d+, %p\d+, %r\d+;/);
  });

  it('assembles match to match.any.sync and match.all.sync of .b32 and .b64', () => {
    const { ptx } = compileAndAssemble(matchKernel(['u32', 'i64', 'f32', 'f64']));
    expect(ptx.match(/match\.any\.sync\.b32/g)).toHaveLength(2);
    expect(ptx.match(/match\.any\.sync\.b64/g)).toHaveLength(2);
    expect(ptx.match(/match\.all\.sync\.b32\s+%r\d+\|%p\d+/g)).toHaveLength(2);
    expect(ptx.match(/match\.all\.sync\.b64\s+%r\d+\|%p\d+/g)).toHaveLength(2);
  });

  it('assembles the lane masks to reads of %lanemask_* and activemask.b32', () => {
    const { ptx } = compileAndAssemble(laneMaskKernel());
    for (const m of MASKS.slice(1)) expect(ptx).toContain(`%lanemask_${m}`);
    expect(ptx).toMatch(/activemask\.b32 %r\d+;/);
  });
});
