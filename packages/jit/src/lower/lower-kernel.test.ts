// The module that lowerKernel writes, read as text: its frame, the kernel
// ABI, naming, and refusals of typed IR that breaks its contract. That
// libNVVM and ptxas accept what it writes is tested beside each lowering.
import { describe, expect, it } from 'vitest';
import {
  KernelBuilder,
  binary,
  breakTo,
  bool,
  compare,
  continueTo,
  exprStmt,
  f32,
  globalIndex,
  i32,
  i64,
  ifStmt,
  logical,
  loop,
  select,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';
import { LoweringError } from './lowering-error.js';
import { NVPTX64_DATA_LAYOUT } from './nvvm-module.js';
import type { TypedKernel } from '../typing/typed-ir.js';

function axpy(): TypedKernel {
  const k = new KernelBuilder('axpy');
  const a = k.scalar('a', 'f32');
  const x = k.array('x', 'f32', 1, 'C', { written: false });
  const y = k.array('y', 'f32', 1, 'C', { shape: true });
  const i = k.local('i', 'i64');
  return k.build([
    exprStmt(i.set(globalIndex())),
    ifStmt(compare('lt', i.get, y.shape(0)), [
      exprStmt(y.store([i.get], binary('add', binary('mul', a.get, x.load(i.get)), y.load(i.get)))),
    ]),
  ]);
}

/** The `define` line of a module. */
function defineLine(ir: string): string {
  return ir.split('\n').find((l) => l.startsWith('define '))!;
}

describe('lowerKernel: the module', () => {
  it('has the NVPTX data layout and triple, the kernel annotation and the IR version', () => {
    const ir = lowerKernel(axpy());
    expect(ir).toContain(`target datalayout = "${NVPTX64_DATA_LAYOUT}"`);
    expect(ir).toContain('target triple = "nvptx64-nvidia-cuda"');
    expect(ir).toContain('!nvvm.annotations = !{!0}');
    expect(ir).toContain('!0 = !{void (float, float*, float*, i64)* @axpy, !"kernel", i32 1}');
    expect(ir).toMatch(/!nvvmir\.version = !\{!1\}\n!1 = !\{i32 2, i32 0\}/);
  });

  it('states the IR version it is given', () => {
    expect(lowerKernel(axpy(), { irVersion: { major: 3, minor: 1 } })).toContain('!1 = !{i32 3, i32 1}');
  });

  it('writes typed pointers only, never an opaque ptr, and no noalias', () => {
    const ir = lowerKernel(axpy());
    expect(ir).not.toMatch(/\bptr\b/);
    expect(ir).not.toContain('noalias');
    expect(defineLine(ir)).toBe(
      'define void @axpy(float %p0.a, float* %p1.x.data, float* %p2.y.data, i64 %p2.y.shape0) {',
    );
  });

  it('defines every value name once', () => {
    const k = new KernelBuilder('names');
    const n = k.scalar('n', 'i32');
    const s = k.local('s', 'i32');
    const i = k.local('i', 'i32');
    const kernel = k.build([
      loop(0, {
        test: compare('lt', i.get, n.get),
        body: [
          exprStmt(
            s.set(select(compare('gt', i.get, i32(3)), logical('and', s.get, i.get), binary('add', s.get, i32(1)))),
          ),
        ],
        update: [exprStmt(i.set(binary('add', i.get, i32(1))))],
      }),
    ]);
    const ir = lowerKernel(kernel);
    const defined = [...ir.matchAll(/^\s+(%[\w.$]+) = /gm)].map((m) => m[1]!);
    expect(defined.length).toBeGreaterThan(10);
    expect(new Set(defined).size).toBe(defined.length);
    const labels = [...ir.matchAll(/^([\w.$]+):$/gm)].map((m) => m[1]!);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('puts every alloca in the entry block, zero-initialized', () => {
    const ir = lowerKernel(axpy());
    const entry = ir.slice(ir.indexOf('entry:'), ir.indexOf('if.then'));
    expect(entry).toContain('%l0.a = alloca float, align 4');
    expect(entry).toContain('store float 0x0000000000000000, float* %l0.a, align 4');
    expect(entry).toContain('%l1.i = alloca i64, align 8');
    expect(ir.match(/alloca/g)).toHaveLength(2);
  });

  it('names values after source names made safe for LLVM', () => {
    const k = new KernelBuilder('unicode');
    k.scalar('größe', 'f32');
    k.array('$out', 'f32');
    const ir = lowerKernel(k.build([]));
    expect(defineLine(ir)).toBe('define void @unicode(float %p0.gr__e, float* %p1.$out.data) {');
  });
});

describe('lowerKernel: module globals', () => {
  it('puts the globals (memories, strings, the grid counter) before the declarations and the kernel, each once, under $-names', () => {
    const k = new KernelBuilder('globals');
    const out = k.array('out', 'f32');
    const tile = k.shared('tile', 'f32', [8]);
    k.constArray('table', 'i32', [2], [1, 2]);
    const ir = lowerKernel(
      k.build([
        exprStmt(tile.store([i64(0)], f32(1))),
        { op: 'barrier', scope: 'grid' },
        { op: 'barrier', scope: 'grid' },
        { op: 'print', format: 'x\n', args: [] },
        exprStmt(out.store([i64(0)], tile.load(i64(0)))),
      ]),
    );
    const lines = ir.split('\n');
    const globals = lines.filter((l) => l.startsWith('@'));
    expect(globals.map((l) => l.split(' ')[0])).toEqual([
      '@shared$0$tile',
      '@const$1$table',
      '@grid$barrier',
      '@printf$0',
    ]);
    const firstDeclare = lines.findIndex((l) => l.startsWith('declare '));
    expect(Math.max(...globals.map((g) => lines.indexOf(g)))).toBeLessThan(firstDeclare);
    expect(firstDeclare).toBeLessThan(lines.findIndex((l) => l.startsWith('define ')));
  });
});

describe('lowerKernel: the ABI', () => {
  it('passes a bool scalar as i8 and makes it an i1 by `!= 0`', () => {
    const k = new KernelBuilder('flag');
    const flag = k.scalar('flag', 'bool');
    const out = k.array('out', 'i32');
    const ir = lowerKernel(k.build([ifStmt(flag.get, [exprStmt(out.store([i64(0)], i32(1)))])]));
    expect(defineLine(ir)).toBe('define void @flag(i8 %p0.flag, i32* %p1.out.data) {');
    expect(ir).toMatch(/%arg\d+ = icmp ne i8 %p0\.flag, 0\n\s+store i1 %arg\d+, i1\* %l0\.flag, align 1/);
    expect(ir).toContain('!{void (i8, i32*)* @flag, !"kernel", i32 1}');
  });

  it('passes every scalar type as its own width', () => {
    const k = new KernelBuilder('scalars');
    for (const t of ['bool', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'] as const)
      k.scalar(`v_${t}`, t);
    const types = /define void @scalars\((.*)\)/
      .exec(lowerKernel(k.build([])))![1]!
      .split(', ')
      .map((p) => p.split(' ')[0]);
    expect(types).toEqual(['i8', 'i8', 'i8', 'i16', 'i16', 'i32', 'i32', 'i64', 'i64', 'float', 'double']);
  });

  it('passes an array as its data pointer, then the extents, then the strides, as use says', () => {
    for (const layout of ['C', 'F', 'A'] as const) {
      for (const ndim of [1, 2, 3] as const) {
        for (const shape of [false, true]) {
          for (const strides of [false, true]) {
            const k = new KernelBuilder('abi');
            k.array('x', 'f64', ndim, layout, { shape, strides });
            const got = /define void @abi\((.*)\)/.exec(lowerKernel(k.build([])))![1]!;
            const dims = Array.from({ length: ndim }, (_, d) => d);
            const expected = [
              'double* %p0.x.data',
              ...(shape ? dims.map((d) => `i64 %p0.x.shape${d}`) : []),
              ...(strides ? dims.map((d) => `i64 %p0.x.stride${d}`) : []),
            ];
            expect(got, `${layout} ${ndim}-D shape=${shape} strides=${strides}`).toBe(expected.join(', '));
          }
        }
      }
    }
  });

  it('makes bool arrays byte arrays', () => {
    const k = new KernelBuilder('bools');
    const b = k.array('b', 'bool');
    const ir = lowerKernel(k.build([exprStmt(b.store([i64(0)], compare('ne', b.load(i64(1)), bool(true))))]));
    expect(defineLine(ir)).toBe('define void @bools(i8* %p0.b.data) {');
    expect(ir).toMatch(/load i8, i8\* %t\d+, align 1\n\s+%t\d+ = icmp ne i8 %t\d+, 0/);
    expect(ir).toMatch(/zext i1 %t\d+ to i8\n\s+store i8 %t\d+, i8\* %t\d+, align 1/);
  });
});

describe('lowerKernel: typed IR that breaks its contract', () => {
  const refuse = (kernel: TypedKernel, message: RegExp): void => {
    expect(() => lowerKernel(kernel)).toThrow(LoweringError);
    expect(() => lowerKernel(kernel)).toThrow(message);
  };

  it('refuses a symbol that is not a C identifier', () => {
    refuse({ ...new KernelBuilder('x').build([]), symbol: 'my-kernel' }, /not a C identifier/);
  });

  it('refuses a wrong number of indices, and arrays indexed without what their layout needs', () => {
    const k = new KernelBuilder('bad');
    const a = k.array('a', 'f32', 2, 'C');
    const s = k.array('s', 'f32', 2, 'A', { strides: false });
    const c = k.array('c', 'f32', 2, 'C', { shape: false });
    refuse(k.build([exprStmt(a.load(i64(0)))]), /1 indices for array\(f32, 2, 'C'\)/);
    refuse(k.build([exprStmt(s.load(i64(0), i64(0)))]), /needs its strides/);
    refuse(k.build([exprStmt(c.load(i64(0), i64(0)))]), /needs its extents/);
    refuse(k.build([exprStmt(c.shape(0))]), /needs its extents/);
    refuse(k.build([exprStmt(a.shape(2))]), /dimension 2/);
  });

  it('refuses jumps to statements that do not enclose them', () => {
    const k = new KernelBuilder('jumps');
    refuse(k.build([breakTo(7)]), /break to 7/);
    refuse(k.build([{ op: 'block', id: 1, body: [continueTo(1)] }]), /continue to 1, which is not an enclosing loop/);
  });

  it('refuses operators on types that do not have them, and mismatched operands', () => {
    const k = new KernelBuilder('ops');
    const x = k.local('x', 'f32');
    refuse(k.build([exprStmt(binary('shl', x.get, f32(1)))]), /binary 'shl' on f32/);
    refuse(k.build([exprStmt(binary('add', x.get, i32(1)))]), /binary 'add' on f32 and i32/);
    refuse(k.build([exprStmt({ op: 'unary', type: 'i32', operator: 'not', operand: i32(1) })]), /unary 'not' on i32/);
    refuse(k.build([exprStmt({ op: 'local', type: 'i32', id: 0 })]), /local 0 \(x\) is f32, used as i32/);
    refuse(k.build([exprStmt({ op: 'local', type: 'i32', id: 9 })]), /local 9 does not exist/);
    refuse(
      k.build([exprStmt({ op: 'math', type: 'i32', fn: 'sin', argType: 'i32', args: [i32(1)] })]),
      /math 'sin' on i32/,
    );
    refuse(k.build([exprStmt({ op: 'math', type: 'f32', fn: 'pow', argType: 'f32', args: [f32(1)] })]), /takes 2/);
  });
});
