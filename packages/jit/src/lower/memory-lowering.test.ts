// The kernel's own memories: static and dynamic shared arrays, local arrays
// and const arrays, as module globals and allocas, addressed in C order;
// their shapes and strides; libNVVM and ptxas accept each.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { Expr } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, barrier, binary, convert, exprStmt, f32, i64, special } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';
import { LoweringError } from './lowering-error.js';

const tid = (r: 'tid.x' | 'tid.y' = 'tid.x'): Expr => convert('i64', special(r));

/** tile[ty][tx] = x[ty * 16 + tx]; barrier; out[...] = tile[tx][ty]: a transpose through a 16 x 17 shared tile. */
function transposeKernel() {
  const k = new KernelBuilder('transpose');
  const x = k.array('x', 'f32', 1, 'C', { written: false });
  const out = k.array('out', 'f32');
  const tile = k.shared('tile', 'f32', [16, 17]);
  const flat = binary('add', binary('mul', tid('tid.y'), i64(16)), tid());
  return k.build([
    exprStmt(tile.store([tid('tid.y'), tid()], x.load(flat))),
    barrier('block'),
    exprStmt(out.store([flat], tile.load(tid(), tid('tid.y')))),
  ]);
}

/** A kernel of two dynamic shared arrays (f32 and f64) whose extents it stores. */
function dynamicKernel() {
  const k = new KernelBuilder('dynamic');
  const out = k.array('out', 'i64');
  const a = k.dynamicShared('a', 'f32');
  const b = k.dynamicShared('b', 'f64');
  return k.build([
    exprStmt(a.store([tid()], f32(1))),
    barrier('block'),
    exprStmt(out.store([i64(0)], a.shape(0))),
    exprStmt(out.store([i64(1)], b.shape(0))),
    exprStmt(out.store([i64(2)], convert('i64', b.load(tid())))),
  ]);
}

/** A per-thread array filled and read back at run-time indices, so that it stays in memory. */
function localKernel() {
  const k = new KernelBuilder('local_array');
  const n = k.scalar('n', 'i64');
  const out = k.array('out', 'i32');
  const tmp = k.localArray('tmp', 'i32', [2, 4]);
  return k.build([
    exprStmt(tmp.store([n.get, tid()], convert('i32', special('tid.x')))),
    exprStmt(out.store([tid()], tmp.load(i64(1), n.get))),
  ]);
}

/** Const tables of several types, read at run-time indices. */
function constKernel() {
  const k = new KernelBuilder('tables');
  const out = k.array('out', 'f64');
  const flags = k.array('flags', 'bool');
  const wide = k.array('wide', 'u64');
  const f = k.constArray('f', 'f64', [2, 2], [1.5, -0, Number.NaN, Infinity]);
  const u = k.constArray('u', 'u64', [3], [0n, 2n ** 64n - 1n, 42n]);
  const b = k.constArray('b', 'bool', [3], [true, false, true]);
  const t = k.constArray('t', 'u32', [2], [0xffffffff, 7]);
  return k.build([
    exprStmt(out.store([tid()], f.load(i64(1), tid()))),
    exprStmt(wide.store([tid()], u.load(tid()))),
    exprStmt(flags.store([tid()], b.load(tid()))),
    exprStmt(wide.store([i64(3)], convert('u64', t.load(tid())))),
  ]);
}

it('declares a static shared array as an internal addrspace(3) global of its size and addresses it in C order', () => {
  const ir = lowerKernel(transposeKernel());
  expect(ir).toContain('@shared$0$tile = internal addrspace(3) global [272 x float] undef, align 16');
  // tile[ty][tx]: ty * 17 + tx, through a direct addrspace(3) pointer.
  expect(ir).toMatch(
    /(%t\d+) = mul i64 %t\d+, 17\n\s+(%t\d+) = add i64 \1, %t\d+\n\s+(%t\d+) = getelementptr inbounds float, float addrspace\(3\)\* getelementptr inbounds \(\[272 x float\], \[272 x float\] addrspace\(3\)\* @shared\$0\$tile, i64 0, i64 0\), i64 \2/,
  );
  expect(ir).toMatch(/store float %t\d+, float addrspace\(3\)\* %t\d+, align 4/);
  expect(ir).toMatch(/load float, float addrspace\(3\)\* %t\d+, align 4/);
});

it('gives every dynamic shared array the one extern symbol, and the extent %dynamic_smem_size / element bytes', () => {
  const ir = lowerKernel(dynamicKernel());
  expect(ir.match(/^@shared\$dynamic = external addrspace\(3\) global \[0 x i8\], align 16$/gm)).toHaveLength(1);
  expect(ir).toContain('bitcast ([0 x i8] addrspace(3)* @shared$dynamic to float addrspace(3)*)');
  expect(ir).toContain('bitcast ([0 x i8] addrspace(3)* @shared$dynamic to double addrspace(3)*)');
  expect(ir).toMatch(
    /(%t\d+) = call i32 asm "mov\.u32 \$0, %dynamic_smem_size;", "=r"\(\)\n\s+(%t\d+) = zext i32 \1 to i64\n\s+%t\d+ = udiv i64 \2, 4/,
  );
  expect(ir).toMatch(/udiv i64 %t\d+, 8/);
});

it('makes a local array an alloca in the entry block, and a const array an addrspace(4) constant with its data', () => {
  const local = lowerKernel(localKernel());
  const entry = local.slice(local.indexOf('entry:'), local.indexOf('entry:') + 400);
  expect(entry).toContain('%m0.tmp.alloca = alloca [8 x i32], align 16');
  expect(entry).toContain('%m0.tmp = getelementptr inbounds [8 x i32], [8 x i32]* %m0.tmp.alloca, i64 0, i64 0');
  expect(local).toMatch(/getelementptr inbounds i32, i32\* %m0\.tmp, i64 %t\d+/);
  const tables = lowerKernel(constKernel());
  expect(tables).toContain(
    '@const$0$f = internal addrspace(4) constant [4 x double] [double 0x3FF8000000000000, double 0x8000000000000000, double 0x7FF8000000000000, double 0x7FF0000000000000], align 16',
  );
  expect(tables).toContain('@const$1$u = internal addrspace(4) constant [3 x i64] [i64 0, i64 -1, i64 42], align 16');
  expect(tables).toContain('@const$2$b = internal addrspace(4) constant [3 x i8] [i8 1, i8 0, i8 1], align 16');
  expect(tables).toContain('@const$3$t = internal addrspace(4) constant [2 x i32] [i32 -1, i32 7], align 16');
  expect(tables).toMatch(/load double, double addrspace\(4\)\* %t\d+, align 8/);
});

it('gives memories of the same name their own symbols, and their shapes and strides as constants', () => {
  const k = new KernelBuilder('same_names');
  const out = k.array('out', 'i64');
  const a = k.shared('buf', 'i32', [2, 3, 5]);
  const b = k.shared('buf', 'i32', [7]);
  const c = k.localArray('buf', 'i32', [4]);
  const dims = [a.shape(0), a.shape(2), a.stride(0), a.stride(1), a.stride(2), b.shape(0), c.shape(0), c.stride(0)];
  const ir = lowerKernel(k.build(dims.map((d, i) => exprStmt(out.store([i64(i)], d)))));
  expect(ir).toContain('@shared$0$buf = internal addrspace(3) global [30 x i32] undef, align 16');
  expect(ir).toContain('@shared$1$buf = internal addrspace(3) global [7 x i32] undef, align 16');
  expect(ir).toContain('%m2.buf.alloca = alloca [4 x i32], align 16');
  const stored = [...ir.matchAll(/store i64 (-?\d+), i64\* %t\d+/g)].map((m) => Number(m[1]));
  expect(stored).toEqual([2, 5, 15, 5, 1, 7, 4, 1]);
});

it('refuses stores to const arrays, refs to a memory of another space, and malformed memories', () => {
  const write = new KernelBuilder('const_store');
  const table = write.constArray('t', 'f32', [2], [1, 2]);
  expect(() => lowerKernel(write.build([exprStmt(table.store([i64(0)], f32(3)))]))).toThrow(/store to a const array/);
  const wrong = new KernelBuilder('wrong_space');
  wrong.shared('s', 'f32', [4]);
  const ref: Expr = { op: 'load', type: 'f32', ref: { array: 0, space: 'local', indices: [i64(0)] } };
  expect(() => lowerKernel(wrong.build([exprStmt(ref)]))).toThrow(/not in local memory/);
  const short = new KernelBuilder('short_data');
  short.constArray('t', 'f32', [3], [1, 2]);
  expect(() => lowerKernel(short.build([]))).toThrow(LoweringError);
  const dynamicLocal = new KernelBuilder('dynamic_local');
  dynamicLocal.memory({ space: 'local', name: 'l', dtype: 'f32', shape: [0], dynamic: true });
  expect(() => lowerKernel(dynamicLocal.build([]))).toThrow(/dynamic/);
  const badShape = new KernelBuilder('bad_shape');
  badShape.shared('s', 'f32', [2.5]);
  expect(() => lowerKernel(badShape.build([]))).toThrow(/shape/);
});

describeWhen(compileRequirements, 'memories through libNVVM and ptxas', () => {
  it('puts a static shared array in .shared memory of its size, read and written with ld/st.shared', () => {
    const { ptx } = compileAndAssemble(transposeKernel());
    expect(ptx).toMatch(/\.shared \.align 16 \.b8 shared\$0\$tile\[1088\];/);
    expect(ptx).toMatch(/st\.shared\.f32/);
    expect(ptx).toMatch(/ld\.shared\.f32/);
    expect(ptx).toMatch(/bar\.sync\s+0;/);
  });

  it('declares dynamic shared memory as one .extern .shared array and reads %dynamic_smem_size', () => {
    const { ptx } = compileAndAssemble(dynamicKernel());
    expect(ptx.match(/\.extern \.shared \.align 16 \.b8 shared\$dynamic\[\];/g)).toHaveLength(1);
    expect(ptx).toContain('%dynamic_smem_size');
    expect(ptx).toMatch(/st\.shared\.(u32|f32)/);
    expect(ptx).toMatch(/ld\.shared\.f64/);
  });

  it('keeps a local array indexed at run time in .local memory', () => {
    const { ptx } = compileAndAssemble(localKernel());
    expect(ptx).toMatch(/\.local \.align 16 \.b8 \t?__local_depot0\[32\];/);
    expect(ptx).toMatch(/st\.local\.u32/);
    expect(ptx).toMatch(/ld\.local\.u32/);
  });

  it('puts const arrays in .const memory with their bytes, read with ld.const', () => {
    const { ptx } = compileAndAssemble(constKernel());
    // 1.5, -0, NaN, +Inf as little-endian doubles.
    expect(ptx).toContain(
      '.const .align 16 .b8 const$0$f[32] = {0, 0, 0, 0, 0, 0, 248, 63, 0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 248, 127, 0, 0, 0, 0, 0, 0, 240, 127};',
    );
    expect(ptx).toMatch(/ld\.const\.f64/);
    expect(ptx).toMatch(/ld\.const\.u64/);
  });
});
