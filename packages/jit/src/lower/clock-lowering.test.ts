// The timers and nanosleep: volatile inline PTX that reads %clock64 and
// %globaltimer and runs nanosleep.u32, where it is written.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, binary, exprStmt, i32, i64, sleep, timer, u32 } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

/** start = clock64; sleep; out[0] = clock64 - start; out[1] = globaltimer. */
function clockKernel() {
  const k = new KernelBuilder('clocks');
  const ns = k.scalar('ns', 'u32');
  const out = k.array('out', 'u64');
  const start = k.local('start', 'u64');
  return k.build([
    exprStmt(start.set(timer('clock64'))),
    sleep(ns.get),
    sleep(u32(1000)),
    exprStmt(out.store([i64(0)], binary('sub', timer('clock64'), start.get))),
    exprStmt(out.store([i64(1)], timer('globaltimer'))),
  ]);
}

it('reads the timers and sleeps through volatile inline PTX', () => {
  const ir = lowerKernel(clockKernel());
  expect(ir.match(/call i64 asm sideeffect "mov\.u64 \$0, %clock64;", "=l"\(\)/g)).toHaveLength(2);
  expect(ir).toContain('call i64 asm sideeffect "mov.u64 $0, %globaltimer;", "=l"()');
  expect(ir).toMatch(/call void asm sideeffect "nanosleep\.u32 \$0;", "r,~\{memory\}"\(i32 %t\d+\)/);
  expect(ir).toContain('call void asm sideeffect "nanosleep.u32 $0;", "r,~{memory}"(i32 1000)');
  expect(() => lowerKernel(new KernelBuilder('bad_sleep').build([sleep(i32(1))]))).toThrow(/sleep of type i32/);
});

describeWhen(compileRequirements, 'timers and sleep through libNVVM and ptxas', () => {
  it('assembles to two reads of %clock64 around the sleeps, and a read of %globaltimer', () => {
    const { ptx } = compileAndAssemble(clockKernel());
    const order = [
      ...ptx.matchAll(/(mov\.u64 %rd\d+, %clock64|nanosleep\.u32 %r\d+|mov\.u64 %rd\d+, %globaltimer)/g),
    ].map(
      (m) =>
        m[1]!.split(' ')[0] +
        (m[1]!.includes('%clock64') ? ' clock64' : m[1]!.includes('globaltimer') ? ' globaltimer' : ''),
    );
    expect(order).toEqual([
      'mov.u64 clock64',
      'nanosleep.u32',
      'nanosleep.u32',
      'mov.u64 clock64',
      'mov.u64 globaltimer',
    ]);
  });
});
