// The compile stage against the real libNVVM and libdevice of this machine;
// loading is judged where a device is (compile-kernel.gpu.test.ts), and
// here only for how it fails without one.
import { CompileCache, LinkerUnavailableError, ObjectCodeLoadError, UnsupportedOptionError } from '@cuda-js/program';
import { expect, it } from 'vitest';
import { KernelBuilder, binary, exprStmt, i64, math } from '../lower/ir-builders.test-support.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import { compileKernel, compileKernelAsync, compileToPtx, compileToPtxAsync } from './compile-kernel.js';
import {
  describeWhen,
  deviceMissing,
  itWhen,
  linkerMissing,
  nvvmMissing,
  ptxasMissing,
  ptxasRejects,
} from './toolchain-environment.test-support.js';

function muladdIr(symbol = 'muladd'): string {
  const k = new KernelBuilder(symbol);
  const x = k.array('x', 'f32', 1, 'C', { written: false });
  const out = k.array('out', 'f32');
  const at = (i: number) => x.load(i64(i));
  return lowerKernel(
    k.build([exprStmt(out.store([i64(0)], binary('add', binary('mul', at(0), at(1)), math('sqrt', at(2)))))]),
  );
}

describeWhen([nvvmMissing], 'compileToPtx', () => {
  it('makes PTX for the architecture asked for, with libdevice linked', () => {
    const ptx = compileToPtx(muladdIr(), { arch: 'sm_90' });
    expect(ptx).toMatch(/^\.target sm_90$/m);
    expect(ptx).toContain('.visible .entry muladd(');
    expect(ptx).not.toContain('__nv_');
    expect(compileToPtx(muladdIr(), { arch: 80 })).toMatch(/^\.target sm_80$/m);
  });

  itWhen([ptxasMissing], 'makes PTX that ptxas accepts', () => {
    expect(ptxasRejects(compileToPtx(muladdIr(), { arch: 'sm_90' }))).toBeUndefined();
  });

  it('gives the same PTX on a worker thread', async () => {
    expect(await compileToPtxAsync(muladdIr(), { arch: 'sm_90' })).toBe(compileToPtx(muladdIr(), { arch: 'sm_90' }));
  });

  it('passes the math modes on: FMA contraction by default, none with fma false, approximations with fastMath', () => {
    const ir = muladdIr();
    expect(compileToPtx(ir, { arch: 'sm_90' })).toMatch(/fma\.rn\.f32/);
    const exact = compileToPtx(ir, { arch: 'sm_90', fma: false });
    expect(exact).not.toMatch(/fma\.rn\.f32/);
    expect(exact).toMatch(/sqrt\.rn\.f32/);
    expect(compileToPtx(ir, { arch: 'sm_90', fastMath: true })).toMatch(/sqrt\.approx\.ftz\.f32/);
    expect(compileToPtx(ir, { arch: 'sm_90', fastMath: true, precSqrt: true })).toMatch(/sqrt\.rn\.ftz\.f32/);
  });

  it('uses the compile cache it is given', () => {
    const cache = new CompileCache();
    const first = compileToPtx(muladdIr(), { arch: 'sm_90', cache });
    expect(compileToPtx(muladdIr(), { arch: 'sm_90', cache })).toBe(first);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  it("throws libNVVM's error with a log that names the kernel's module", () => {
    const broken = muladdIr().replace(/store float (%t\d+)/, 'store double $1');
    const logs: string[] = [];
    let error: (Error & { log?: string }) | undefined;
    try {
      compileToPtx(broken, { arch: 'sm_90', name: 'broken', logs: (t) => logs.push(t) });
    } catch (e) {
      error = e as Error & { log?: string };
    }
    expect(error?.name).toBe('NvvmError');
    expect(error?.log).toContain('broken.ll');
    expect(logs.join('')).toBe(error?.log);
  });

  it('refuses unknown routes, and link-step options on the ptx route', () => {
    expect(() => compileToPtx(muladdIr(), { arch: 'sm_90', route: 'fatbin' as never })).toThrow(
      /route must be one of 'auto', 'ptx', 'cubin'/,
    );
    expect(() => compileKernel(muladdIr(), 'muladd', { arch: 'sm_90', route: 'ptx', maxRegisters: 32 })).toThrow(
      UnsupportedOptionError,
    );
    expect(() => compileKernel(muladdIr(), 'muladd', { arch: 'sm_90', route: 'ptx', lineinfo: true })).toThrow(
      /use route 'cubin'/,
    );
  });
});

describeWhen(
  [nvvmMissing, deviceMissing === undefined ? 'a device is present: loading is tested by the gpu project' : undefined],
  'compileKernel without a device',
  () => {
    it('compiles, then says that the kernel cannot be loaded here', async () => {
      expect(() => compileKernel(muladdIr(), 'muladd', { arch: 'sm_90' })).toThrow(ObjectCodeLoadError);
      await expect(compileKernelAsync(muladdIr(), 'muladd', { arch: 'sm_90' })).rejects.toThrow(ObjectCodeLoadError);
    });

    itWhen(
      [linkerMissing === undefined ? 'a linker is usable here' : undefined],
      'says that no linker can make the cubin route',
      () => {
        expect(() => compileKernel(muladdIr(), 'muladd', { arch: 'sm_90', route: 'cubin' })).toThrow(
          LinkerUnavailableError,
        );
        expect(() => compileKernel(muladdIr(), 'muladd', { arch: 'sm_90', maxRegisters: 64 })).toThrow(
          LinkerUnavailableError,
        );
      },
    );
  },
);
