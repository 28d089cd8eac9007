// A kernel's name where neither its `name` option nor its function gives one:
// the name it is assigned to, from the build plugin's record or, without the
// plugin, from the line of its jit() call.
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import { bindingBefore, callSiteBinding } from './call-site-binding.js';
import { KERNEL_RECORD_KEY, type KernelRecord } from './kernel-record.js';

const SIM = { target: 'simulator' } as const;

describe('the name a kernel is assigned to', () => {
  it('names an unnamed kernel after the const, let, assignment or property it is made for', () => {
    const saxpy = jit((a: number, x: Float32Array, y: Float32Array) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    }, SIM);
    expect(saxpy.name).toBe('saxpy');
    let later = jit((x: Float32Array) => {
      x[0] = 1;
    }, SIM);
    expect(later.name).toBe('later');
    later = jit((x: Float32Array) => {
      x[0] = 2;
    }, SIM);
    expect(later.name).toBe('later');
    const kernels = {
      fill: jit((x: Float32Array) => {
        x[0] = 3;
      }, SIM),
    };
    expect(kernels.fill.name).toBe('fill');
    // biome-ignore format: the call on the line after the name it is assigned to
    const broken =
      jit((x: Float32Array) => {
        x[0] = 4;
      }, SIM);
    expect(broken.name).toBe('broken');
    const withConstants = jit.withConstants(
      { N: 2 },
      ({ N }) =>
        (x: Float32Array) => {
          x[0] = N;
        },
      SIM,
    );
    expect(withConstants.name).toBe('withConstants');
    // and it runs as before
    const y = new Float32Array([1, 1]);
    saxpy.launch({ grid: 1, block: 2 }, 2, new Float32Array([1, 2]), y);
    expect([...y]).toEqual([3, 5]);
  });

  it('comes after the name option and the function’s own name; a kernel assigned to nothing is `kernel`', () => {
    const optioned = jit(
      (x: Float32Array) => {
        x[0] = 1;
      },
      { ...SIM, name: 'given' },
    );
    expect(optioned.name).toBe('given');
    const own = jit(function scale(x: Float32Array) {
      x[0] = 1;
    }, SIM);
    expect(own.name).toBe('scale');
    const list = [
      jit((x: Float32Array) => {
        x[0] = 1;
      }, SIM),
    ];
    expect(list[0]!.name).toBe('kernel');
  });

  it('reads the record of the build plugin first (its name, else its binding)', () => {
    const record = (extra: Partial<KernelRecord>): KernelRecord => ({
      version: 1,
      kind: 'kernel',
      id: 'src/app.ts:3:20',
      source: '(x) => {\n  x[0] = 1;\n}',
      file: 'src/app.ts',
      line: 3,
      column: 20,
      imports: {},
      ...extra,
    });
    const recorded = (r: KernelRecord) =>
      Object.defineProperty((x: Float32Array) => void x, Symbol.for(KERNEL_RECORD_KEY), {
        value: r,
        configurable: true,
      });
    const bound = jit(recorded(record({ binding: 'fromBuild' })), SIM);
    expect(bound.name).toBe('fromBuild');
    const both = jit(recorded(record({ name: 'own', binding: 'fromBuild' })), SIM);
    expect(both.name).toBe('own');
    expect(() => jit(recorded(record({ binding: 3 as never })), SIM)).toThrow(/has a binding that is not a string/);
  });

  it.each([
    ['const saxpy = ', 'saxpy'],
    ['export const saxpy = ', 'saxpy'],
    ['  let k: JitKernel<[Float32Array]> = ', 'k'],
    ['var a = 1, b = ', 'b'],
    ['saxpy = ', 'saxpy'],
    ['module.exports.saxpy = ', 'saxpy'],
    ['const k = { saxpy: ', 'saxpy'],
    ["  'saxpy': ", 'saxpy'],
    ['const saxpy = cj.', 'saxpy'],
    ['const a = b ? c : ', undefined],
    ['if (a == ', undefined],
    ['a += ', undefined],
    ['return ', undefined],
    ['const k = wrap(', undefined],
    ['', undefined],
  ])('reads %j as %s', (before, name) => {
    expect(bindingBefore(before)).toBe(name);
  });

  it('gives no name where the call site is no call (a file compiled without a map) or cannot be read', () => {
    expect(callSiteBinding(undefined)).toBeUndefined();
    expect(callSiteBinding({ file: '/nowhere/app.js', line: 1, column: 1 })).toBeUndefined();
    // this file's first line is a comment, not a call
    expect(callSiteBinding({ file: new URL(import.meta.url).pathname, line: 1, column: 4 })).toBeUndefined();
  });
});
