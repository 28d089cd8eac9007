// popc, clz, ffs and brev on 32- and 64-bit integers: LLVM's bit intrinsics,
// the ffs formula, the result types, and PTX's popc/clz/brev.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { BitFunction, Expr } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, bits, convert, exprStmt, f32, i64, special } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const FUNCTIONS: readonly BitFunction[] = ['popc', 'clz', 'ffs', 'brev'];
const TYPES: readonly ScalarName[] = ['i32', 'u32', 'i64', 'u64'];
const tid = (): Expr => convert('i64', special('tid.x'));

/** Each bit function of x[tid] for `type`: popc/clz/ffs to an i32 array, brev to one of `type`. */
function bitsKernel(type: ScalarName) {
  const k = new KernelBuilder(`bits_${type}`);
  const x = k.array('x', type, 1, 'C', { written: false });
  const counts = k.array('counts', 'i32');
  const same = k.array('same', type);
  return k.build(
    FUNCTIONS.map((fn, i) => exprStmt((fn === 'brev' ? same : counts).store([i64(i)], bits(fn, x.load(tid()))))),
  );
}

it('calls llvm.ctpop, llvm.ctlz defined at zero, and llvm.bitreverse, truncating 64-bit counts to i32', () => {
  const ir32 = lowerKernel(bitsKernel('u32'));
  expect(ir32).toMatch(/call i32 @llvm\.ctpop\.i32\(i32 %t\d+\)/);
  expect(ir32).toMatch(/call i32 @llvm\.ctlz\.i32\(i32 %t\d+, i1 false\)/);
  expect(ir32).toMatch(/call i32 @llvm\.bitreverse\.i32\(i32 %t\d+\)/);
  const ir64 = lowerKernel(bitsKernel('i64'));
  expect(ir64).toMatch(/(%t\d+) = call i64 @llvm\.ctpop\.i64\(i64 %t\d+\)\n\s+%t\d+ = trunc i64 \1 to i32/);
  expect(ir64).toMatch(/(%t\d+) = call i64 @llvm\.ctlz\.i64\(i64 %t\d+, i1 false\)\n\s+%t\d+ = trunc i64 \1 to i32/);
  expect(ir64).toMatch(/(%t\d+) = call i64 @llvm\.bitreverse\.i64\(i64 %t\d+\)\n\s+store i64 \1/);
});

it('takes ffs as x == 0 ? 0 : cttz(x) + 1', () => {
  expect(lowerKernel(bitsKernel('i32'))).toMatch(
    /(%t\d+) = call i32 @llvm\.cttz\.i32\(i32 (%t\d+), i1 false\)\n\s+(%t\d+) = add i32 \1, 1\n\s+(%t\d+) = icmp eq i32 \2, 0\n\s+%t\d+ = select i1 \4, i32 0, i32 \3/,
  );
  expect(lowerKernel(bitsKernel('u64'))).toMatch(
    /(%t\d+) = select i1 %t\d+, i64 0, i64 %t\d+\n\s+%t\d+ = trunc i64 \1 to i32/,
  );
});

it('refuses bit functions of floats', () => {
  const k = new KernelBuilder('bits_f32');
  const out = k.array('out', 'i32');
  expect(() => lowerKernel(k.build([exprStmt(out.store([i64(0)], bits('popc', f32(1))))]))).toThrow(/'popc' on f32/);
});

describeWhen(compileRequirements, 'bit functions through libNVVM and ptxas', () => {
  it('assembles to popc, clz and brev of .b32 and .b64', () => {
    for (const type of TYPES) {
      const { ptx } = compileAndAssemble(bitsKernel(type));
      const width = type.endsWith('64') ? 'b64' : 'b32';
      expect(ptx, type).toMatch(new RegExp(`popc\\.${width}`));
      expect(ptx, type).toMatch(new RegExp(`clz\\.${width}`));
      expect(ptx, type).toMatch(new RegExp(`brev\\.${width}`));
    }
  });
});
