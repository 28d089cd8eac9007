// Warp shuffles: PTX's own mode where it is exactly the contract (a constant
// lane in range), the source lane computed and read with idx otherwise, the
// `c` operand from the width, and 64-bit values as two halves.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { Expr, ShuffleMode } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, convert, exprStmt, i32, i64, shuffle, special, u32 } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const FULL = u32(0xffffffff);
const tid = (): Expr => convert('i64', special('tid.x'));

/** out[tid] = shuffle(mode, FULL, x[tid], lane, width) on `type`. */
function shuffleKernel(
  mode: ShuffleMode,
  type: ScalarName,
  lane: Expr | ((k: KernelBuilder) => Expr),
  width: Expr = i32(32),
) {
  const k = new KernelBuilder(`shfl_${mode}_${type}`);
  const x = k.array('x', type, 1, 'C', { written: false });
  const out = k.array('out', type);
  const laneExpr = typeof lane === 'function' ? lane(k) : lane;
  return k.build([exprStmt(out.store([tid()], shuffle(mode, FULL, x.load(tid()), laneExpr, width)))]);
}

/** The shfl.sync instructions of PTX: [mode, b, c, mask]. */
const shfls = (ptx: string): string[][] =>
  [...ptx.matchAll(/shfl\.sync\.(\w+)\.b32\s+%\w+, %\w+, (%?\w+), (%?\w+), (%?-?\w+);/g)].map((m) => m.slice(1, 5));

it('calls shfl.sync.<mode>.i32 or .f32 with c = ((32 - width) << 8) | 0x1f, or (32 - width) << 8 for up', () => {
  expect(lowerKernel(shuffleKernel('down', 'f32', i32(16)))).toMatch(
    /call float @llvm\.nvvm\.shfl\.sync\.down\.f32\(i32 -1, float %t\d+, i32 16, i32 31\)/,
  );
  expect(lowerKernel(shuffleKernel('up', 'i32', i32(1), i32(8)))).toMatch(
    /call i32 @llvm\.nvvm\.shfl\.sync\.up\.i32\(i32 -1, i32 %t\d+, i32 1, i32 6144\)/,
  );
  expect(lowerKernel(shuffleKernel('xor', 'u32', i32(4), i32(8)))).toMatch(
    /call i32 @llvm\.nvvm\.shfl\.sync\.bfly\.i32\(i32 -1, i32 %t\d+, i32 4, i32 6175\)/,
  );
  expect(lowerKernel(shuffleKernel('idx', 'f32', i32(3), i32(16)))).toMatch(
    /call float @llvm\.nvvm\.shfl\.sync\.idx\.f32\(i32 -1, float %t\d+, i32 3, i32 4127\)/,
  );
});

it('computes the source lane where PTX would differ from the contract, keeping the own value outside the segment', () => {
  // A lane known only at run time: source = laneid + lane, inside when ((source ^ laneid) & ~(width - 1)) == 0.
  const ir = lowerKernel(shuffleKernel('down', 'i32', (k) => k.scalar('delta', 'i32').get, i32(16)));
  expect(ir).toMatch(
    /(%t\d+) = call i32 @llvm\.nvvm\.read\.ptx\.sreg\.laneid\(\)\n\s+(%t\d+) = sub i32 16, 1\n\s+(%t\d+) = xor i32 \2, -1\n\s+(%t\d+) = add i32 \1, (%t\d+)\n\s+(%t\d+) = xor i32 \4, \1\n\s+(%t\d+) = and i32 \6, \3\n\s+(%t\d+) = icmp eq i32 \7, 0\n\s+(%t\d+) = select i1 \8, i32 \4, i32 \1\n\s+%t\d+ = call i32 @llvm\.nvvm\.shfl\.sync\.idx\.i32\(i32 -1, i32 %t\d+, i32 \9, i32 31\)/,
  );
  // Constants out of PTX's exact range: up by 40 (PTX would take 40 mod 32), xor by 8 in segments of 8 (PTX would read the segment before).
  expect(lowerKernel(shuffleKernel('up', 'i32', i32(40)))).toMatch(/sub i32 %t\d+, 40[\s\S]*shfl\.sync\.idx\.i32/);
  expect(lowerKernel(shuffleKernel('xor', 'i32', i32(8), i32(8)))).toMatch(
    /xor i32 %t\d+, 8[\s\S]*shfl\.sync\.idx\.i32/,
  );
});

it('reads lane `lane & (width - 1)` of the segment for idx, which is PTX’s shfl.idx for every lane and width', () => {
  expect(lowerKernel(shuffleKernel('idx', 'i32', i32(-1), i32(8)))).toMatch(
    /call i32 @llvm\.nvvm\.shfl\.sync\.idx\.i32\(i32 -1, i32 %t\d+, i32 -1, i32 6175\)/,
  );
  const runtime = lowerKernel(
    shuffleKernel('idx', 'f64', (k) => k.scalar('src', 'i32').get, { op: 'local', type: 'i32', id: 0 }),
  );
  expect(runtime).toMatch(/(%t\d+) = sub i32 32, (%t\d+)\n\s+(%t\d+) = shl i32 \1, 8\n\s+(%t\d+) = or i32 \3, 31/);
  expect(
    runtime.match(/call i32 @llvm\.nvvm\.shfl\.sync\.idx\.i32\(i32 -1, i32 %t\d+, i32 %t\d+, i32 %t\d+\)/g),
  ).toHaveLength(2);
  expect(runtime).not.toContain('laneid');
});

it('shuffles 64-bit values as two 32-bit halves, and refuses widths that are not powers of two up to 32', () => {
  for (const type of ['i64', 'u64', 'f64'] as const) {
    const ir = lowerKernel(shuffleKernel('xor', type, i32(1)));
    expect(ir.match(/call i32 @llvm\.nvvm\.shfl\.sync\.bfly\.i32/g), type).toHaveLength(2);
    expect(ir).toMatch(/lshr i64 %t\d+, 32/);
    expect(ir).toMatch(/shl i64 %t\d+, 32/);
  }
  expect(lowerKernel(shuffleKernel('xor', 'f64', i32(1)))).toMatch(
    /bitcast double %t\d+ to i64[\s\S]*bitcast i64 %t\d+ to double/,
  );
  expect(() => lowerKernel(shuffleKernel('down', 'i32', i32(1), i32(3)))).toThrow(/width 3/);
  expect(() => lowerKernel(shuffleKernel('down', 'i32', i32(1), i32(64)))).toThrow(/width 64/);
});

describeWhen(compileRequirements, 'shuffles through libNVVM and ptxas', () => {
  it('assembles to shfl.sync.<mode>.b32 with the lane and c operands the contract gives', () => {
    expect(shfls(compileAndAssemble(shuffleKernel('down', 'f32', i32(16))).ptx)).toEqual([['down', '16', '31', '-1']]);
    expect(shfls(compileAndAssemble(shuffleKernel('up', 'u32', i32(2), i32(4))).ptx)).toEqual([
      ['up', '2', '7168', '-1'],
    ]);
    expect(shfls(compileAndAssemble(shuffleKernel('xor', 'i32', i32(1), i32(2))).ptx)).toEqual([
      ['bfly', '1', '7711', '-1'],
    ]);
    expect(shfls(compileAndAssemble(shuffleKernel('idx', 'i32', i32(0))).ptx)).toEqual([['idx', '0', '31', '-1']]);
    const general = shfls(
      compileAndAssemble(shuffleKernel('down', 'f32', (k) => k.scalar('delta', 'i32').get, i32(8))).ptx,
    );
    expect(general).toHaveLength(1);
    expect(general[0]!.slice(0, 1)).toEqual(['idx']);
    expect(general[0]![2]).toBe('31');
  });

  it('assembles 64-bit shuffles to two shfl.sync each', () => {
    for (const type of ['i64', 'u64', 'f64'] as const) {
      expect(shfls(compileAndAssemble(shuffleKernel('down', type, i32(1))).ptx), type).toEqual([
        ['down', '1', '31', '-1'],
        ['down', '1', '31', '-1'],
      ]);
    }
  });

  it('assembles a shuffle under a mask and width known only at run time', () => {
    const k = new KernelBuilder('shfl_runtime');
    const mask = k.scalar('mask', 'u32');
    const width = k.scalar('width', 'i32');
    const out = k.array('out', 'u64');
    const { ptx } = compileAndAssemble(
      k.build([exprStmt(out.store([i64(0)], shuffle('up', mask.get, out.load(tid()), i32(1), width.get)))]),
    );
    expect(shfls(ptx)).toHaveLength(2);
    expect(ptx).toContain('%laneid');
  });
});
