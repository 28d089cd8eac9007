// Program with code type 'nvvm', against the real libNVVM and libdevice of the
// CUDA toolkit on this machine, with the toolkit's ptxas as the judge.
import { errorOf } from '@cuda-js/test-support/errors';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NvvmError } from '@cuda-js/bindings';
import { findLibdevice } from '@cuda-js/pathfinder';
import { afterEach, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';
import { parseDiagnostics } from './compile-log.js';
import { cudaVersionFromInteger, minimumCudaForPtxIsa, ptxIsaVersion } from './compatibility.js';
import { cuda } from './cuda-bindings.js';
import { LinkerUnavailableError, UnsupportedOptionError } from './errors.js';
import { Program } from './program.js';
import {
  describeWhen,
  deviceMissing,
  itWhen,
  nvJitLinkMissing,
  nvvmMissing,
  ptxasCannotRead,
  ptxasPath,
  ptxasRejects,
} from './test-environment.js';

/** An NVVM IR kernel: out[i] = <fn>(in[i]) for one libdevice function. */
function mathKernel(fn: string, kernel = 'mathkernel'): string {
  return `
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @${fn}(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @${kernel}(float* %out, float* %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = sext i32 %tid to i64
  %pin = getelementptr float, float* %in, i64 %i
  %x = load float, float* %pin
  %y = call float @${fn}(float %x)
  %pout = getelementptr float, float* %out, i64 %i
  store float %y, float* %pout
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*, float*)* @${kernel}, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
`;
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describeWhen([nvvmMissing], 'Program nvvm through libNVVM', () => {
  it('compiles NVVM IR text to PTX with libdevice math linked in', () => {
    const out = new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true }).compile('ptx', {
      checkCompatibility: false,
    });
    expect(out.codeType).toBe('ptx');
    const ptx = text(out.code);
    expect(ptx).toContain('.entry mathkernel(');
    expect(ptx).toMatch(/^\.target sm_90$/m);
    // Linked, not called: no external __nv_sinf remains.
    expect(ptx).not.toContain('__nv_sinf');
  });

  itWhen(
    [ptxasPath ? undefined : 'no ptxas (CUDA toolkit) on this machine'],
    'makes PTX that ptxas -arch=sm_90 accepts, and that needs libdevice to be accepted',
    (context) => {
      const linked = new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true }).compile(
        'ptx',
        { checkCompatibility: false },
      );
      const cannot = ptxasCannotRead(linked.code);
      if (cannot) context.skip(cannot);
      expect(ptxasRejects(linked.code, 'sm_90')).toBeUndefined();
      const unlinked = new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90' }).compile('ptx', {
        checkCompatibility: false,
      });
      expect(ptxasRejects(unlinked.code, 'sm_90')).toMatch(/Unresolved extern function '__nv_sinf'/);
    },
  );

  it('passes math modes on to libdevice: fast math gives the approximate square root', () => {
    const sqrt = (options: object): string =>
      text(
        new Program(mathKernel('__nv_sqrtf'), 'nvvm', { arch: 'sm_90', useLibdevice: true, ...options }).compile(
          'ptx',
          { checkCompatibility: false },
        ).code,
      );
    expect(sqrt({ fastMath: true })).toContain('sqrt.approx.ftz.f32');
    expect(sqrt({})).toContain('sqrt.rn.f32');
    expect(sqrt({ precSqrt: false })).toMatch(/sqrt\.approx\.f32/);
  });

  it('takes bitcode as the main module and IR text as an extra module', () => {
    const bitcode = new Uint8Array(readFileSync(findLibdevice().path));
    const out = new Program(bitcode, 'nvvm', {
      arch: 'sm_90',
      extraModules: [mathKernel('__nv_expf', 'expkernel')],
    }).compile('ptx', { checkCompatibility: false });
    const ptx = text(out.code);
    expect(ptx).toContain('.entry expkernel(');
    expect(ptx).not.toMatch(/\.extern .*__nv_expf/);
  });

  it('compiles to LTO-IR with -gen-lto', () => {
    const out = new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true }).compile('ltoir');
    expect(out.codeType).toBe('ltoir');
    expect(out.code.byteLength).toBeGreaterThan(0);
    expect(text(out.code)).not.toContain('.entry');
  });

  it('throws NvvmError with the log for IR that does not parse', () => {
    const logs: string[] = [];
    const error = errorOf<NvvmError>(() => {
      const ir = 'define void @f() {\nentry:\n  %x = add i32 %y, 1\n  ret void\n}\n';
      new Program(ir, 'nvvm', { arch: 'sm_90', name: 'bad.ll' }).compile('ptx', { logs: (t) => logs.push(t) });
    });
    expect(error).toBeInstanceOf(NvvmError);
    expect(error!.log).toBeTruthy();
    expect(parseDiagnostics(error!.log!)[0]).toMatchObject({ file: 'bad.ll', line: 3, column: 15, severity: 'error' });
    expect(error!.log).toContain("undefined value '%y'");
    expect(logs.join('')).toBe(error!.log);
  });

  it('refuses options that libNVVM cannot honour for the target', () => {
    expect(() =>
      new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', maxRegisters: 32 }).compile('ptx'),
    ).toThrow(UnsupportedOptionError);
  });

  it('hits the compile cache for the same IR, options and libdevice', () => {
    const cache = new CompileCache();
    const compile = (options: object): Uint8Array =>
      new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true, ...options }).compile('ptx', {
        cache,
        checkCompatibility: false,
      }).code;
    const first = compile({});
    expect(compile({})).toEqual(first);
    expect(compile({ fastMath: true })).not.toEqual(first);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 2 });
  });

  // Issue 20: an entry whose header said cubin was served to compile('ptx').
  it('serves a cache entry only of the kind asked for, and writes over one of another kind', () => {
    const folder = mkdtempSync(join(tmpdir(), 'program-cache-kind-'));
    try {
      const program = () => new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true });
      const first = program().compile('ptx', {
        cache: new CompileCache({ directory: folder }),
        checkCompatibility: false,
      });
      const shard = readdirSync(folder).find((name) => /^[0-9a-f]{2}$/.test(name))!;
      const key = readdirSync(join(folder, shard))[0]!.replace(/\.bin$/, '');
      const poisoned = new CompileCache({ directory: folder });
      poisoned.set(key, {
        codeType: 'cubin',
        name: 'x',
        code: new Uint8Array([0x7f, 0x45, 0x4c, 0x46]),
        symbolMapping: {},
      });
      const cache = new CompileCache({ directory: folder });
      const again = program().compile('ptx', { cache, checkCompatibility: false });
      expect(again.codeType).toBe('ptx');
      expect(again.code).toEqual(first.code);
      expect(new CompileCache({ directory: folder }).get(key)?.codeType).toBe('ptx'); // written over
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  itWhen(
    [
      nvJitLinkMissing === undefined ? 'nvJitLink is present here' : undefined,
      deviceMissing === undefined ? 'a CUDA device is present here' : undefined,
    ],
    'says clearly that no linker can make the cubin',
    () => {
      const error = errorOf<LinkerUnavailableError>(() => {
        new Program(mathKernel('__nv_sinf'), 'nvvm', { arch: 'sm_90', useLibdevice: true }).compile('cubin');
      });
      expect(error).toBeInstanceOf(LinkerUnavailableError);
      expect(Object.keys(error!.reasons)).toEqual(['nvJitLink', 'driver']);
    },
  );
});

describeWhen([nvvmMissing], 'Program nvvm: compatibility with this driver', () => {
  const seen: Error[] = [];
  const listener = (w: Error): void => void seen.push(w);
  afterEach(() => {
    process.off('warning', listener);
    seen.length = 0;
  });

  it('warns, with both versions, when the driver cannot load the PTX, and stays quiet when it can', async () => {
    let driverVersion: number;
    try {
      driverVersion = cuda.driver.cuDriverGetVersion();
    } catch {
      return; // no driver library: nothing to compare with
    }
    process.on('warning', listener);
    const out = new Program(mathKernel('__nv_cosf'), 'nvvm', { arch: 'sm_90', useLibdevice: true }).compile('ptx');
    await new Promise((resolve) => setImmediate(resolve));
    const required = minimumCudaForPtxIsa(ptxIsaVersion(out.code)!);
    const driver = cudaVersionFromInteger(driverVersion);
    const tooNew = required.major > driver.major || (required.major === driver.major && required.minor > driver.minor);
    const warnings = seen.filter((w) => w.name === 'CudaCompatibilityWarning');
    if (tooNew) {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toContain(`needs a driver of CUDA ${required.major}.${required.minor}`);
      expect(warnings[0]!.message).toContain(`the driver supports CUDA ${driver.major}.${driver.minor}`);
      expect(out.compatibility()).toMatchObject({ loadable: false });
    } else {
      expect(warnings).toHaveLength(0);
      expect(out.compatibility()).toMatchObject({ loadable: true });
    }
  });
});
