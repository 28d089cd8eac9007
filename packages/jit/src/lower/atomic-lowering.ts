// Atomics (typed-ir.ts's AtomicFunction), each giving the element's old
// value, relaxed (`monotonic`, CUDA's atomicAdd & co.) and device-scoped:
// - integer add/sub/and/or/xor/exch/min/max: `atomicrmw` (min/max signed or
//   unsigned by the type); cas: `cmpxchg`;
// - f32/f64 add: `llvm.nvvm.atomic.load.add.f32/f64` (LLVM 7 has no
//   `atomicrmw fadd`: libNVVM refuses it); sub: the same on the negated value
//   (`old - v` is `old + -v` exactly in IEEE arithmetic);
// - f16/bf16 add: PTX's `atom.add.noftz.f16` (sm_70) and `.bf16` (sm_90),
//   inline, in the element's state space;
// - f32/f64 exch: `atomicrmw xchg` on the bits;
// - u32 inc/dec: `llvm.nvvm.atomic.load.inc/dec.32`, which are PTX's atom.inc
//   and atom.dec, whose definitions are the contract's formulas;
// - f32/f64 min/max, u64 inc/dec: a compare-and-swap loop on the bits around
//   atomic-update.ts's formula.
// A parameter's element is in global memory (the pointer is cast to
// addrspace(1)), a shared array's in addrspace(3). A local array belongs to
// one thread, so its atomics are a plain load, update and store.
import { bitsOf, isFloat, isHalf, type ScalarName } from '../types/jit-types.js';
import { ATOMIC_TYPES, type AtomicFunction } from '../types/typed-ir.js';
import type { ElementPointer } from './array-addressing.js';
import { atomicUpdate } from './atomic-update.js';
import { asmValue } from './inline-asm.js';
import { bitsType, floatLiteral, memoryBytes, memoryType, pointerType, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

const RMW_OPERATIONS: Partial<Record<AtomicFunction, string>> = { add: 'add', sub: 'sub', and: 'and', or: 'or', xor: 'xor', exch: 'xchg' };

/** The atomic `fn` on the element at `target`; `compare` for `cas` only. Returns the old value. */
export function lowerAtomic(ctx: LoweringContext, fn: AtomicFunction, target: ElementPointer, value: TypedValue, compare?: TypedValue): TypedValue {
  const type = target.dtype;
  const allowed = ATOMIC_TYPES[fn];
  if (!allowed) throw new LoweringError(`unknown atomic function '${fn}'`);
  if (!allowed.includes(type)) throw new LoweringError(`atomic '${fn}' on ${type}`);
  if (value.type !== type) throw new LoweringError(`atomic '${fn}' on ${type} given a ${value.type}`);
  if ((fn === 'cas') !== (compare !== undefined)) throw new LoweringError(`atomic '${fn}' ${fn === 'cas' ? 'without' : 'with'} a compare value`);
  if (compare && compare.type !== type) throw new LoweringError(`atomic 'cas' on ${type} given a ${compare.type} to compare`);
  const result = (ref: string): TypedValue => ({ ref, type });
  if (target.memory === 'const') throw new LoweringError(`atomic '${fn}' on a const array`);
  if (target.memory === 'local') return result(localAtomic(ctx, fn, target, value.ref, compare?.ref));

  const pointer = target.memory === 'global' ? toGlobal(ctx, target) : target;
  const b = ctx.builder;
  const t = registerType(type);
  const float = isFloat(type);
  if (isHalf(type) && fn === 'add') return result(halfAtomicAdd(ctx, pointer, value.ref));
  if (fn === 'cas') {
    const pair = b.compute(`cmpxchg ${pointer.type} ${pointer.ref}, ${t} ${compare!.ref}, ${t} ${value.ref} monotonic monotonic`);
    return result(b.compute(`extractvalue { ${t}, i1 } ${pair}, 0`));
  }
  if (!float && (fn === 'min' || fn === 'max')) {
    const operation = `${type.startsWith('u') ? 'u' : ''}${fn}`;
    return result(b.compute(`atomicrmw ${operation} ${pointer.type} ${pointer.ref}, ${t} ${value.ref} monotonic`));
  }
  const rmw = RMW_OPERATIONS[fn];
  if (!float && rmw) return result(b.compute(`atomicrmw ${rmw} ${pointer.type} ${pointer.ref}, ${t} ${value.ref} monotonic`));
  if (float && (fn === 'add' || fn === 'sub')) {
    const addend = fn === 'add' ? value.ref : b.compute(`fsub ${t} ${floatLiteral(-0, type as 'f32' | 'f64')}, ${value.ref}`);
    const intrinsic = ctx.declarations.declare(`llvm.nvvm.atomic.load.add.${float32or64(type)}.${mangled(pointer)}`, t, [pointer.type, t]);
    return result(b.compute(`call ${t} ${intrinsic}(${pointer.type} ${pointer.ref}, ${t} ${addend})`));
  }
  if (float && fn === 'exch') {
    const bits = bitsPointer(ctx, pointer);
    const i = bitsType(type);
    const valueBits = b.compute(`bitcast ${t} ${value.ref} to ${i}`);
    const oldBits = b.compute(`atomicrmw xchg ${bits.type} ${bits.ref}, ${i} ${valueBits} monotonic`);
    return result(b.compute(`bitcast ${i} ${oldBits} to ${t}`));
  }
  if (type === 'u32' && (fn === 'inc' || fn === 'dec')) {
    const intrinsic = ctx.declarations.declare(`llvm.nvvm.atomic.load.${fn}.32.${mangled(pointer)}`, 'i32', [pointer.type, 'i32']);
    return result(b.compute(`call i32 ${intrinsic}(${pointer.type} ${pointer.ref}, i32 ${value.ref})`));
  }
  return result(compareAndSwapLoop(ctx, pointer, (old) => atomicUpdate(ctx, fn, type, old, value.ref)));
}

/**
 * `atom.add.noftz.f16`/`.bf16` on the element (global, shared or generic), giving the old value; noftz: subnormals are kept,
 * as everywhere else. The operands are bits: libNVVM takes no `half` operand in inline assembly.
 */
function halfAtomicAdd(ctx: LoweringContext, pointer: ElementPointer, value: string): string {
  const b = ctx.builder;
  const type = pointer.dtype;
  const space = pointer.addressSpace === 1 ? '.global' : pointer.addressSpace === 3 ? '.shared' : '';
  const address = b.compute(`ptrtoint ${pointer.type} ${pointer.ref} to i64`);
  const bits = type === 'f16' ? b.compute(`bitcast half ${value} to i16`) : value;
  const old = asmValue(ctx, 'i16', {
    template: `atom${space}.add.noftz.${type} $0, [$1], $2;`,
    constraints: '=h,l,h,~{memory}',
    operands: [
      { type: 'i64', ref: address },
      { type: 'i16', ref: bits },
    ],
  });
  return type === 'f16' ? b.compute(`bitcast i16 ${old} to half`) : old;
}

function float32or64(type: ScalarName): string {
  return type === 'f32' ? 'f32' : 'f64';
}

/** An intrinsic's suffix for its pointer operand: `p1f32`, `p3i32`. */
function mangled(pointer: ElementPointer): string {
  const t = pointer.dtype;
  return `p${pointer.addressSpace}${isFloat(t) ? 'f' : 'i'}${bitsOf(t)}`;
}

function toGlobal(ctx: LoweringContext, target: ElementPointer): ElementPointer {
  if (target.addressSpace === 1) return target;
  const type = pointerType(memoryType(target.dtype), 1);
  return { ...target, ref: ctx.builder.compute(`addrspacecast ${target.type} ${target.ref} to ${type}`), addressSpace: 1, type };
}

/** The element's pointer as a pointer to an integer of its width (the same pointer for integers). */
function bitsPointer(ctx: LoweringContext, pointer: ElementPointer): { ref: string; type: string } {
  if (!isFloat(pointer.dtype)) return pointer;
  const type = pointerType(bitsType(pointer.dtype), pointer.addressSpace);
  return { ref: ctx.builder.compute(`bitcast ${pointer.type} ${pointer.ref} to ${type}`), type };
}

/**
 * Loops `old = *p; new = update(old); if (bits(new) == bits(old) || cas(p, old, new) succeeds) done; else old = what cas saw`,
 * and returns the old value. Leaving without a store when nothing changes is still atomic: the value read was there.
 * Floats are compared and swapped by their bits, so that NaNs and signed zeros make progress.
 */
function compareAndSwapLoop(ctx: LoweringContext, pointer: ElementPointer, update: (old: string) => string): string {
  const b = ctx.builder;
  const type = pointer.dtype;
  const t = registerType(type);
  const i = bitsType(type);
  const float = isFloat(type);
  const bits = bitsPointer(ctx, pointer);
  const first = b.compute(`load volatile ${i}, ${bits.type} ${bits.ref}, align ${memoryBytes(type)}`);
  const before = b.currentLabel;
  const head = b.newLabel('atomic.loop');
  const swap = b.newLabel('atomic.swap');
  const done = b.newLabel('atomic.done');
  const seen = b.newValue('seen');
  b.startBlock(head);
  const oldBits = b.compute(`phi ${i} [ ${first}, %${before} ], [ ${seen}, %${swap} ]`);
  const old = float ? b.compute(`bitcast ${i} ${oldBits} to ${t}`) : oldBits;
  const next = update(old);
  const nextBits = float ? b.compute(`bitcast ${t} ${next} to ${i}`) : next;
  const unchanged = b.compute(`icmp eq ${i} ${nextBits}, ${oldBits}`);
  b.branchIf(unchanged, done, swap);
  b.startBlock(swap);
  const pair = b.compute(`cmpxchg ${bits.type} ${bits.ref}, ${i} ${oldBits}, ${i} ${nextBits} monotonic monotonic`);
  b.emit(`${seen} = extractvalue { ${i}, i1 } ${pair}, 0`);
  const swapped = b.compute(`extractvalue { ${i}, i1 } ${pair}, 1`);
  b.branchIf(swapped, done, head);
  b.startBlock(done);
  return old;
}

/** An atomic on a thread's own (local) memory: nothing else can see it, so a load, the update and a store. */
function localAtomic(ctx: LoweringContext, fn: AtomicFunction, target: ElementPointer, value: string, compare: string | undefined): string {
  const b = ctx.builder;
  const t = registerType(target.dtype);
  const align = memoryBytes(target.dtype);
  const old = b.compute(`load ${t}, ${target.type} ${target.ref}, align ${align}`);
  const next = atomicUpdate(ctx, fn, target.dtype, old, value, compare);
  b.emit(`store ${t} ${next}, ${target.type} ${target.ref}, align ${align}`);
  return old;
}
