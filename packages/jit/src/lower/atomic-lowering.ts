// Atomics: the NVVM form of their row in intrinsics/atomics.ts, each giving
// the element's old value, relaxed (`monotonic`, CUDA's atomicAdd & co.) and
// device-scoped. On global and shared memory, the row's instruction for the
// element's type (LLVM lines: `atomicrmw`, `cmpxchg`, an NVVM intrinsic; or
// inline PTX on the element's address and the value's bits), else a
// compare-and-swap loop on the bits around the row's formula
// (atomic-update.ts). A parameter's element is in global memory (the pointer
// is cast to addrspace(1)), a shared array's in addrspace(3). A local array
// belongs to one thread, so its atomics are a plain load, the formula and a store.
import { type AtomicFunction, type AtomicRow, atomicRow } from '../intrinsics/atomics.js';
import { type AsmForm, isAsmForm } from '../intrinsics/forms.js';
import { bitsOf, isFloat } from '../typing/jit-types.js';
import type { ElementPointer } from './array-addressing.js';
import { atomicUpdate } from './atomic-update.js';
import { bitsType, floatLiteral, memoryBytes, memoryType, pointerType, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerAsmForm, lowerLlvmForm } from './nvvm-form.js';

/** The atomic `fn` on the element at `target`; `compare` for `cas` only. Returns the old value. */
export function lowerAtomic(
  ctx: LoweringContext,
  fn: AtomicFunction,
  target: ElementPointer,
  value: TypedValue,
  compare?: TypedValue,
): TypedValue {
  const type = target.dtype;
  const row = atomicRow(fn);
  if (!row) throw new LoweringError(`unknown atomic function '${fn}'`);
  if (!row.types.includes(type)) throw new LoweringError(`atomic '${fn}' on ${type}`);
  if (value.type !== type) throw new LoweringError(`atomic '${fn}' on ${type} given a ${value.type}`);
  const compares = row.operands === 'compare';
  if (compares !== (compare !== undefined))
    throw new LoweringError(`atomic '${fn}' ${compares ? 'without' : 'with'} a compare value`);
  if (compare && compare.type !== type)
    throw new LoweringError(`atomic '${fn}' on ${type} given a ${compare.type} to compare`);
  const result = (ref: string): TypedValue => ({ ref, type });
  if (target.memory === 'const') throw new LoweringError(`atomic '${fn}' on a const array`);
  if (target.memory === 'local') return result(localAtomic(ctx, row, fn, target, value.ref, compare?.ref));

  const pointer = target.memory === 'global' ? toGlobal(ctx, target) : target;
  const instruction = row.nvvm.find((form) => form.types === undefined || form.types.includes(type));
  if (instruction === undefined)
    return result(compareAndSwapLoop(ctx, pointer, (old) => atomicUpdate(ctx, row, fn, type, old, value.ref)));
  if (isAsmForm(instruction)) return result(asmAtomic(ctx, instruction, pointer, value.ref));
  const t = registerType(type);
  const old = lowerLlvmForm(ctx, instruction, {
    t,
    i: bitsType(type),
    p: pointer.type,
    ip: pointerType(bitsType(type), pointer.addressSpace),
    ptr: pointer.ref,
    type,
    m: mangled(pointer),
    value: value.ref,
    ...(compare ? { compare: compare.ref } : {}),
    ...(type === 'f32' || type === 'f64' ? { negzero: floatLiteral(-0, type) } : {}),
  });
  if (old === undefined) throw new LoweringError(`atomic '${fn}' on ${type} has an NVVM form that gives no value`);
  return result(old);
}

/**
 * An inline-PTX atomic on the element (global, shared or generic): its operands are the element's address (i64) and the
 * value's bits, its output the old value's bits. libNVVM takes no `half` operand in inline assembly, hence the bits.
 */
function asmAtomic(ctx: LoweringContext, form: AsmForm, pointer: ElementPointer, value: string): string {
  const b = ctx.builder;
  const type = pointer.dtype;
  const t = registerType(type);
  const i = bitsType(type);
  const space = pointer.addressSpace === 1 ? '.global' : pointer.addressSpace === 3 ? '.shared' : '';
  const address = b.compute(`ptrtoint ${pointer.type} ${pointer.ref} to i64`);
  const bits = t === i ? value : b.compute(`bitcast ${t} ${value} to ${i}`);
  const old = lowerAsmForm(ctx, form, { space, type }, [
    { type: 'i64', ref: address },
    { type: i, ref: bits },
  ]);
  if (old === undefined || form.result !== i)
    throw new LoweringError(
      `atomic on ${type}: its inline PTX gives ${form.result ?? 'nothing'}, not the element's bits (${i})`,
    );
  return t === i ? old : b.compute(`bitcast ${i} ${old} to ${t}`);
}

/** An intrinsic's suffix for its pointer operand: `p1f32`, `p3i32`. */
function mangled(pointer: ElementPointer): string {
  const t = pointer.dtype;
  return `p${pointer.addressSpace}${isFloat(t) ? 'f' : 'i'}${bitsOf(t)}`;
}

function toGlobal(ctx: LoweringContext, target: ElementPointer): ElementPointer {
  if (target.addressSpace === 1) return target;
  const type = pointerType(memoryType(target.dtype), 1);
  return {
    ...target,
    ref: ctx.builder.compute(`addrspacecast ${target.type} ${target.ref} to ${type}`),
    addressSpace: 1,
    type,
  };
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
function localAtomic(
  ctx: LoweringContext,
  row: AtomicRow,
  fn: AtomicFunction,
  target: ElementPointer,
  value: string,
  compare: string | undefined,
): string {
  const b = ctx.builder;
  const t = registerType(target.dtype);
  const align = memoryBytes(target.dtype);
  const old = b.compute(`load ${t}, ${target.type} ${target.ref}, align ${align}`);
  const next = atomicUpdate(ctx, row, fn, target.dtype, old, value, compare);
  b.emit(`store ${t} ${next}, ${target.type} ${target.ref}, align ${align}`);
  return old;
}
