// A grid barrier in the module itself (no libcudadevrt), as cooperative
// groups' grid sync does it, on one counter per module (`grid$barrier`, an
// addrspace(1) i32 that starts at 0):
//
//   block barrier
//   thread (0,0,0) of each block:
//     fence (device); old = atom.add.release.gpu(counter, block (0,0,0) ? 0x80000000 - (nblocks - 1) : 1)
//     spin until the top bit of ld.acquire.gpu(counter) differs from old's
//   block barrier
//
// The adds of one barrier sum to 0x80000000: the last arrival flips the top
// bit, which every block waits for, and the low bits return to what they
// were, so the counter serves the next barrier and the next launch as it is.
import { asmValue } from './inline-asm.js';
import type { LoweringContext } from './lowering-context.js';

/** The symbol of the counter that the grid barrier's blocks arrive at. */
export const GRID_BARRIER_SYMBOL = 'grid$barrier';

export function lowerGridBarrier(ctx: LoweringContext): void {
  const b = ctx.builder;
  const blockBarrier = (): void => b.emit(`call void ${ctx.declarations.declare('llvm.nvvm.barrier0', 'void', [])}()`);
  const counter = ctx.declarations.defineGlobal(GRID_BARRIER_SYMBOL, 'internal addrspace(1) global i32 0, align 4');
  const pointer = { type: 'i32 addrspace(1)*', ref: counter };
  const register = (name: string): string =>
    b.compute(`call i32 ${ctx.declarations.declare(`llvm.nvvm.read.ptx.sreg.${name}`, 'i32', [])}()`);
  const anyOf = (base: string): string =>
    b.compute(
      `or i32 ${b.compute(`or i32 ${register(`${base}.x`)}, ${register(`${base}.y`)}`)}, ${register(`${base}.z`)}`,
    );

  blockBarrier();
  const arrive = b.newLabel('grid.arrive');
  const spin = b.newLabel('grid.spin');
  const leave = b.newLabel('grid.leave');
  b.branchIf(b.compute(`icmp eq i32 ${anyOf('tid')}, 0`), arrive, leave);

  b.startBlock(arrive);
  const blocks = b.compute(
    `mul i32 ${b.compute(`mul i32 ${register('nctaid.x')}, ${register('nctaid.y')}`)}, ${register('nctaid.z')}`,
  );
  const others = b.compute(`sub i32 ${blocks}, 1`);
  const flip = b.compute(`sub i32 -2147483648, ${others}`);
  const first = b.compute(`icmp eq i32 ${anyOf('ctaid')}, 0`);
  const increment = b.compute(`select i1 ${first}, i32 ${flip}, i32 1`);
  b.emit(`call void ${ctx.declarations.declare('llvm.nvvm.membar.gl', 'void', [])}()`);
  const old = asmValue(ctx, 'i32', {
    template: 'atom.release.gpu.global.add.u32 $0, [$1], $2;',
    constraints: '=r,l,r,~{memory}',
    operands: [pointer, { type: 'i32', ref: increment }],
  });
  b.startBlock(spin);
  const now = asmValue(ctx, 'i32', {
    template: 'ld.acquire.gpu.global.u32 $0, [$1];',
    constraints: '=r,l,~{memory}',
    operands: [pointer],
  });
  const changed = b.compute(`and i32 ${b.compute(`xor i32 ${now}, ${old}`)}, -2147483648`);
  b.branchIf(b.compute(`icmp ne i32 ${changed}, 0`), leave, spin);

  b.startBlock(leave);
  blockBarrier();
}
