// Every atomic function on every type it takes, in global, shared and local
// memory: the PTX instruction each becomes (a native atom where PTX has the
// contract's operation, a compare-and-swap loop where not, plain code in a
// thread's own memory), the formulas of the loops, and the refusals.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { bitsOf, isFloat, isHalf, type ScalarName } from '../typing/jit-types.js';
import { ATOMIC_TYPES, type AtomicFunction, type ElementRef, type Expr } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, atomic, constant, convert, exprStmt, i64, special } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

type Space = 'global' | 'shared' | 'local';
const FUNCTIONS = Object.keys(ATOMIC_TYPES) as AtomicFunction[];
const tid = (): Expr => convert('i64', special('tid.x'));
const one = (type: ScalarName): Expr => constant(type, type.endsWith('64') && !isFloat(type) ? 1n : 1);

/** `fn` on an element of an array of each type that `fn` takes, in `space`; the old values are stored to global arrays. */
function atomicKernel(fn: AtomicFunction, space: Space, types: readonly ScalarName[] = ATOMIC_TYPES[fn]) {
  const k = new KernelBuilder(`atomic_${fn}_${space}`);
  const body = types.map((type) => {
    const out = k.array(`out_${type}`, type);
    const target: ElementRef =
      space === 'global'
        ? k.array(`x_${type}`, type).ref(tid())
        : space === 'shared'
          ? k.shared(`s_${type}`, type, [64]).ref(tid())
          : k.localArray(`l_${type}`, type, [4]).ref(i64(1));
    const value = convert(type, special('tid.y'));
    return exprStmt(out.store([tid()], atomic(fn, target, value, fn === 'cas' ? one(type) : undefined)));
  });
  return k.build(body);
}

/** The PTX atom instruction that `fn` on `type` becomes in `space` (global or shared). */
function expectedAtom(fn: AtomicFunction, type: ScalarName, space: 'global' | 'shared'): string {
  const bits = bitsOf(type);
  const cas = `atom.${space}.cas.b${bits}`;
  const float = isFloat(type);
  switch (fn) {
    case 'add':
    case 'sub':
      if (isHalf(type)) return `atom.${space}.add.noftz.${type}`;
      return `atom.${space}.add.${float ? 'f' : 'u'}${bits}`;
    case 'min':
    case 'max':
    case 'nanmin':
    case 'nanmax':
      return float ? cas : `atom.${space}.${fn.replace('nan', '')}.${type.startsWith('u') ? 'u' : 's'}${bits}`;
    case 'and':
    case 'or':
    case 'xor':
    case 'exch':
      return `atom.${space}.${fn}.b${bits}`;
    case 'inc':
    case 'dec':
      return bits === 32 ? `atom.${space}.${fn}.u32` : cas;
    case 'cas':
      return cas;
  }
}

const atoms = (ptx: string): string[] => [...ptx.matchAll(/\b(atom|red)\.[\w.]+/g)].map((m) => m[0]).sort();

it('uses atomicrmw for the integer operations, cmpxchg for cas, and NVVM intrinsics for float add and u32 inc/dec', () => {
  const add = lowerKernel(atomicKernel('add', 'global'));
  expect(add).toMatch(/atomicrmw add i32 addrspace\(1\)\* %t\d+, i32 %t\d+ monotonic/);
  expect(add).toMatch(
    /call float @llvm\.nvvm\.atomic\.load\.add\.f32\.p1f32\(float addrspace\(1\)\* %t\d+, float %t\d+\)/,
  );
  expect(add).toMatch(
    /call double @llvm\.nvvm\.atomic\.load\.add\.f64\.p1f64\(double addrspace\(1\)\* %t\d+, double %t\d+\)/,
  );
  expect(add).toMatch(/addrspacecast float\* %t\d+ to float addrspace\(1\)\*/);
  const sub = lowerKernel(atomicKernel('sub', 'shared', ['f32']));
  expect(sub).toMatch(
    /(%t\d+) = fsub float 0x8000000000000000, %t\d+\n\s+%t\d+ = call float @llvm\.nvvm\.atomic\.load\.add\.f32\.p3f32\(float addrspace\(3\)\* %t\d+, float \1\)/,
  );
  expect(lowerKernel(atomicKernel('min', 'global', ['u64']))).toMatch(/atomicrmw umin i64 addrspace\(1\)\*/);
  expect(lowerKernel(atomicKernel('max', 'shared', ['i32']))).toMatch(/atomicrmw max i32 addrspace\(3\)\*/);
  expect(lowerKernel(atomicKernel('inc', 'shared', ['u32']))).toMatch(
    /call i32 @llvm\.nvvm\.atomic\.load\.inc\.32\.p3i32\(i32 addrspace\(3\)\* %t\d+, i32 %t\d+\)/,
  );
  expect(lowerKernel(atomicKernel('dec', 'global', ['u32']))).toMatch(
    /call i32 @llvm\.nvvm\.atomic\.load\.dec\.32\.p1i32/,
  );
  const cas = lowerKernel(atomicKernel('cas', 'global', ['i64']));
  expect(cas).toMatch(
    /(%t\d+) = cmpxchg i64 addrspace\(1\)\* %t\d+, i64 1, i64 %t\d+ monotonic monotonic\n\s+%t\d+ = extractvalue \{ i64, i1 \} \1, 0/,
  );
  const exch = lowerKernel(atomicKernel('exch', 'global', ['f64']));
  expect(exch).toMatch(/bitcast double addrspace\(1\)\* %t\d+ to i64 addrspace\(1\)\*/);
  expect(exch).toMatch(
    /(%t\d+) = atomicrmw xchg i64 addrspace\(1\)\* %t\d+, i64 %t\d+ monotonic\n\s+%t\d+ = bitcast i64 \1 to double/,
  );
});

it('loops on compare-and-swap of the bits for float min/max and u64 inc/dec, by the contract’s formulas', () => {
  const min = lowerKernel(atomicKernel('min', 'global', ['f32']));
  // old = the bits read; new = (old < v || old != old) ? old : v; stop when the bits do not change or the swap succeeds.
  expect(min).toMatch(
    /(%t\d+) = load volatile i32, i32 addrspace\(1\)\* (%t\d+), align 4\n\s+br label %(atomic\.loop\.\d+)\n\3:/,
  );
  expect(min).toMatch(
    /(%t\d+) = phi i32 \[ %t\d+, %\w+ \], \[ (%seen\d+), %(atomic\.swap\.\d+) \]\n\s+(%t\d+) = bitcast i32 \1 to float\n\s+(%t\d+) = fcmp olt float \4, (%t\d+)\n\s+(%t\d+) = fcmp uno float \4, \4\n\s+(%t\d+) = or i1 \5, \7\n\s+(%t\d+) = select i1 \8, float \4, float \6\n\s+(%t\d+) = bitcast float \9 to i32\n\s+(%t\d+) = icmp eq i32 \10, \1\n\s+br i1 \11, label %(atomic\.done\.\d+), label %\3\n\3:\n\s+(%t\d+) = cmpxchg i32 addrspace\(1\)\* %t\d+, i32 \1, i32 \10 monotonic monotonic\n\s+\2 = extractvalue \{ i32, i1 \} \13, 0\n\s+(%t\d+) = extractvalue \{ i32, i1 \} \13, 1\n\s+br i1 \14, label %\12, label %atomic\.loop\.\d+/,
  );
  expect(lowerKernel(atomicKernel('max', 'shared', ['f64']))).toMatch(/fcmp ogt double/);
  // nanmax: (old > v || v != v) ? old : v, a NaN value leaving the element as it is
  expect(lowerKernel(atomicKernel('nanmax', 'global', ['f32']))).toMatch(
    /(%t\d+) = fcmp ogt float (%t\d+), (%t\d+)\n\s+(%t\d+) = fcmp uno float \3, \3\n\s+(%t\d+) = or i1 \1, \4\n\s+%t\d+ = select i1 \5, float \2, float \3/,
  );
  expect(lowerKernel(atomicKernel('nanmin', 'shared', ['u64']))).toMatch(/atomicrmw umin i64 addrspace\(3\)\*/);
  // inc: old >= v ? 0 : old + 1
  expect(lowerKernel(atomicKernel('inc', 'global', ['u64']))).toMatch(
    /(%t\d+) = icmp uge i64 (%t\d+), (%t\d+)\n\s+(%t\d+) = add i64 \2, 1\n\s+%t\d+ = select i1 \1, i64 0, i64 \4/,
  );
  // dec: old == 0 || old > v ? v : old - 1
  expect(lowerKernel(atomicKernel('dec', 'shared', ['u64']))).toMatch(
    /(%t\d+) = icmp eq i64 (%t\d+), 0\n\s+(%t\d+) = icmp ugt i64 \2, (%t\d+)\n\s+(%t\d+) = or i1 \1, \3\n\s+(%t\d+) = sub i64 \2, 1\n\s+%t\d+ = select i1 \5, i64 \4, i64 \6/,
  );
});

it('updates a local array with a plain load and store, without any atomic instruction', () => {
  for (const fn of FUNCTIONS) {
    const ir = lowerKernel(atomicKernel(fn, 'local'));
    expect(ir).not.toMatch(/atomicrmw|cmpxchg|llvm\.nvvm\.atomic/);
    expect(ir).toMatch(/load (i16|i32|i64|half|float|double), (i16|i32|i64|half|float|double)\* %t\d+, align/);
  }
  expect(lowerKernel(atomicKernel('cas', 'local', ['u32']))).toMatch(
    /(%t\d+) = icmp eq i32 (%t\d+), 1\n\s+(%t\d+) = select i1 \1, i32 %t\d+, i32 \2\n\s+store i32 \3, i32\* %t\d+, align 4/,
  );
});

it('evaluates the index, then cas’s compare value, then the value', () => {
  const k = new KernelBuilder('cas_order');
  const x = k.array('x', 'i32');
  const a = k.local('a', 'i32');
  const b = k.local('b', 'i32');
  const ir = lowerKernel(k.build([exprStmt(atomic('cas', x.ref(i64(0)), a.get, b.get))]));
  expect(ir).toMatch(
    /(%t\d+) = getelementptr inbounds i32, i32\* %p0\.x\.data, i64 0\n\s+(%t\d+) = load i32, i32\* %l1\.b, align 4\n\s+(%t\d+) = load i32, i32\* %l0\.a, align 4\n(?:.*\n)?\s+%t\d+ = cmpxchg i32 addrspace\(1\)\* %t\d+, i32 \2, i32 \3/,
  );
});

it('refuses atomics on const arrays, on types the function does not take, and cas without a compare value', () => {
  const k = new KernelBuilder('bad_atomics');
  const table = k.constArray('t', 'i32', [1], [0]);
  const x = k.array('x', 'f32');
  expect(() => lowerKernel(k.build([exprStmt(atomic('add', table.ref(i64(0)), constant('i32', 1)))]))).toThrow(
    /const array/,
  );
  expect(() => lowerKernel(k.build([exprStmt(atomic('and', x.ref(i64(0)), constant('f32', 1)))]))).toThrow(
    /atomic 'and' on f32/,
  );
  expect(() => lowerKernel(k.build([exprStmt(atomic('cas', x.ref(i64(0)), constant('f32', 1)))]))).toThrow(
    /atomic 'cas' on f32/,
  );
  const noCompare = new KernelBuilder('no_compare');
  const y = noCompare.array('y', 'u32');
  expect(() => lowerKernel(noCompare.build([exprStmt(atomic('cas', y.ref(i64(0)), constant('u32', 1)))]))).toThrow(
    /without a compare value/,
  );
});

describeWhen(compileRequirements, 'atomics through libNVVM and ptxas', () => {
  it('makes each atomic the PTX atom of its operation and type, in global and in shared memory', () => {
    for (const space of ['global', 'shared'] as const) {
      for (const fn of FUNCTIONS) {
        const { ptx } = compileAndAssemble(atomicKernel(fn, space));
        expect(atoms(ptx), `${fn} in ${space}`).toEqual(
          ATOMIC_TYPES[fn].map((type) => expectedAtom(fn, type, space)).sort(),
        );
      }
    }
  });

  it('leaves a local array’s atomics without any atom instruction', () => {
    for (const fn of FUNCTIONS) expect(atoms(compileAndAssemble(atomicKernel(fn, 'local')).ptx), fn).toEqual([]);
  });
});
