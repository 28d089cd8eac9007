// Program with code type 'c++', against the real NVRTC of this machine
// (NVRTC 11.8 from Debian here and in CI; NVRTC 13 on the GPU host).
import { errorOf } from '@cuda-js/test-support/errors';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NvrtcError } from '@cuda-js/bindings';
import { afterAll, describe, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';
import { parseDiagnostics } from './compile-log.js';
import { minimumCudaForPtxIsa, ptxIsaVersion } from './compatibility.js';
import {
  ArchitectureRequiredError,
  InvalidCodeError,
  UnknownOptionError,
  UnsupportedArchitectureError,
  UnsupportedOptionError,
  UnsupportedTargetError,
} from './errors.js';
import { Program } from './program.js';
import {
  describeWhen,
  deviceMissing,
  itWhen,
  nvrtcMajor,
  nvrtcMissing,
  ptxasCannotRead,
  ptxasPath,
  ptxasRejects,
} from './test-environment.js';

const SOURCE = `
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void root(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = sqrtf(p[i]);
}
`;

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const root = mkdtempSync(join(tmpdir(), 'program-nvrtc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('Program: argument checks (no compiler needed)', () => {
  it('names a bad code type, bad code and bad options', () => {
    expect(() => new Program(SOURCE, 'cuda' as never)).toThrow(InvalidCodeError);
    expect(() => new Program('', 'c++')).toThrow(/empty/);
    expect(() => new Program(new Uint8Array([1]), 'c++')).toThrow(InvalidCodeError);
    expect(() => new Program(SOURCE, 'c++', { arch: 'sm_90', fast_math: true } as never)).toThrow(UnknownOptionError);
    expect(() => new Program(SOURCE, 'c++', { useLibdevice: true })).toThrow(UnsupportedOptionError);
  });

  it('refuses a target the code type cannot produce, before compiling', () => {
    const ptx = new Program('.version 7.8\n.target sm_90\n.address_size 64\n', 'ptx', { arch: 'sm_90' });
    expect(() => ptx.compile('ltoir')).toThrow(UnsupportedTargetError);
    expect(() => new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('fatbin' as never)).toThrow(
      /supported targets: ptx, cubin, ltoir/,
    );
  });

  it('refuses compile options it does not know and name expressions outside C++', () => {
    const p = new Program(SOURCE, 'c++', { arch: 'sm_90' });
    expect(() => p.compile('ptx', { nameExpresions: ['x'] } as never)).toThrow(/did you mean 'nameExpressions'/);
    const nvvm = new Program('define void @f() { ret void }', 'nvvm', { arch: 'sm_90' });
    expect(() => nvvm.compile('ptx', { nameExpressions: ['f'] })).toThrow(UnsupportedOptionError);
  });

  it('refuses to compile after close', () => {
    const p = new Program(SOURCE, 'c++', { arch: 'sm_90' });
    p.close();
    p.close();
    expect(() => p.compile('ptx')).toThrow(/closed/);
  });
});

describeWhen([nvrtcMissing], 'Program c++ through NVRTC', () => {
  it('compiles to PTX for the virtual architecture, with the ISA of its NVRTC', () => {
    const out = new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('ptx');
    expect(out.codeType).toBe('ptx');
    expect(out.name).toBe('program.cu');
    const ptx = text(out.code);
    expect(ptx).toMatch(/^\.target sm_90$/m);
    expect(ptx).toContain('.entry root(');
    expect(minimumCudaForPtxIsa(ptxIsaVersion(ptx)!).major).toBe(nvrtcMajor);
    expect(out.code.at(-1)).not.toBe(0);
  });

  it('instantiates name expressions and reports their lowered names', () => {
    const out = new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('ptx', {
      nameExpressions: ['axpy<float>', 'axpy<double>'],
    });
    const f = out.symbolMapping.get('axpy<float>');
    const d = out.symbolMapping.get('axpy<double>');
    expect(f).toMatch(/^_Z4axpyIf/);
    expect(d).toMatch(/^_Z4axpyId/);
    const ptx = text(out.code);
    expect(ptx).toContain(`.entry ${f}(`);
    expect(ptx).toContain(`.entry ${d}(`);
  });

  it('compiles to a cubin: an ELF image for the CUDA machine, with lowered names', () => {
    const out = new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('cubin', { nameExpressions: ['axpy<float>'] });
    expect(out.codeType).toBe('cubin');
    expect([...out.code.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    // e_machine, at byte 18: EM_CUDA is 190.
    expect(out.code[18]! | (out.code[19]! << 8)).toBe(190);
    const lowered = out.symbolMapping.get('axpy<float>')!;
    expect(Buffer.from(out.code).includes(Buffer.from(lowered))).toBe(true);
  });

  itWhen(
    [ptxasPath ? undefined : 'no ptxas (CUDA toolkit) on this machine'],
    'makes PTX that the toolkit ptxas accepts for sm_90',
    (context) => {
      const out = new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('ptx', { nameExpressions: ['axpy<float>'] });
      const cannot = ptxasCannotRead(out.code);
      if (cannot) context.skip(cannot);
      expect(ptxasRejects(out.code)).toBeUndefined();
    },
  );

  it('throws NvrtcError with the log, whose first error names the line', () => {
    const logs: string[] = [];
    const bad = '__global__ void k(float* y) {\n  int i = threadIdx.x;\n  y[i] = undefined_thing;\n}\n';
    const error = errorOf<NvrtcError>(() => {
      new Program(bad, 'c++', { arch: 'sm_90', name: 'broken.cu' }).compile('ptx', { logs: (t) => logs.push(t) });
    });
    expect(error).toBeInstanceOf(NvrtcError);
    expect(error!.codeName).toBe('NVRTC_ERROR_COMPILATION');
    expect(error!.log).toContain('undefined_thing');
    const first = parseDiagnostics(error!.log!)[0]!;
    expect(first).toMatchObject({ file: 'broken.cu', line: 3, severity: 'error' });
    expect(logs.join('')).toBe(error!.log);
  });

  it('hands warnings to the logs sink of a successful compile', () => {
    const logs: string[] = [];
    const src = '__global__ void k(float* y) { int unused = 3; y[0] = 1.0f; }\n';
    new Program(src, 'c++', { arch: 'sm_90', name: 'warn.cu' }).compile('ptx', {
      logs: { write: (t: string) => logs.push(t) },
    });
    expect(
      parseDiagnostics(logs.join('')).some((d) => d.severity === 'warning' && d.file === 'warn.cu' && d.line === 1),
    ).toBe(true);
  });

  it('passes the options on: macros, in-memory headers, the C++ dialect', () => {
    const src =
      '#include "params.h"\n#if N != 4\n#error N is not 4\n#endif\nstatic_assert(__cplusplus >= 201703L, "C++17");\n__global__ void k(float* y) { y[0] = SCALE; }\n';
    const options = {
      arch: 'sm_90',
      std: 'c++17' as const,
      defines: { N: 4 },
      headers: { 'params.h': '#define SCALE 2.5f\n' },
    };
    // SCALE from the in-memory header is stored as the bits of 2.5f.
    const scaleBits = new Uint32Array(new Float32Array([2.5]).buffer)[0]!;
    expect(text(new Program(src, 'c++', options).compile('ptx').code)).toMatch(new RegExp(`\\b${scaleBits}\\b`));
    expect(() => new Program(src, 'c++', { ...options, defines: { N: 5 } }).compile('ptx')).toThrow(/N is not 4/);
    expect(() => new Program(src, 'c++', { ...options, std: 'c++14' }).compile('ptx')).toThrow(NvrtcError);
  });

  it('passes the code-generation options on: line info, fast math, register limit', () => {
    const compile = (options: object): string =>
      text(new Program(SOURCE, 'c++', { arch: 'sm_90', ...options }).compile('ptx').code);
    expect(compile({ lineinfo: true })).toMatch(/\.loc\s/);
    expect(compile({})).not.toMatch(/\.loc\s/);
    expect(compile({ fastMath: true })).toContain('sqrt.approx');
    expect(compile({})).toContain('sqrt.rn');
    // Many live values: a tight register limit changes the SASS (spills), so the cubins differ.
    const hungry = `extern "C" __global__ void h(float* p) {
      float v[24];
      for (int i = 0; i < 24; i++) v[i] = p[i * blockDim.x + threadIdx.x];
      float s = 0.0f;
      for (int r = 0; r < 8; r++) for (int i = 0; i < 24; i++) s += v[i] * v[(i + r) % 24];
      p[threadIdx.x] = s;
    }`;
    const cubin = (options: object): Uint8Array =>
      new Program(hungry, 'c++', { arch: 'sm_90', ...options }).compile('cubin').code;
    expect(cubin({ maxRegisters: 16 })).not.toEqual(cubin({}));
    expect(() => new Program(hungry, 'c++', { arch: 'sm_90', maxRegisters: 16 }).compile('ptx')).toThrow(
      UnsupportedOptionError,
    );
  });

  it('refuses an architecture this NVRTC does not know, listing those it does', () => {
    const error = errorOf<UnsupportedArchitectureError>(() => {
      new Program(SOURCE, 'c++', { arch: 'sm_21' }).compile('ptx');
    });
    expect(error).toBeInstanceOf(UnsupportedArchitectureError);
    expect(error!.supported).toContain('sm_90');
    expect(error!.message).toContain('does not support sm_21');
  });

  itWhen([nvrtcMajor >= 12 ? `NVRTC ${nvrtcMajor} makes LTO-IR` : undefined], 'says that LTO-IR needs NVRTC 12', () => {
    expect(() => new Program(SOURCE, 'c++', { arch: 'sm_90' }).compile('ltoir')).toThrow(
      /LTO-IR output needs NVRTC 12/,
    );
  });

  itWhen([nvrtcMajor < 12 ? `NVRTC ${nvrtcMajor} cannot make LTO-IR` : undefined], 'compiles to LTO-IR', () => {
    const out = new Program(SOURCE, 'c++', { arch: 'sm_90', relocatableDeviceCode: true }).compile('ltoir');
    expect(out.codeType).toBe('ltoir');
    expect(out.code.byteLength).toBeGreaterThan(0);
  });

  it('compiles on a worker thread with compileAsync, to the same code, while the event loop runs', async () => {
    const program = new Program(SOURCE, 'c++', { arch: 'sm_90' });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const pending = program.compileAsync('cubin', { nameExpressions: ['axpy<float>'] });
    const out = await pending;
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    const sync = program.compile('cubin', { nameExpressions: ['axpy<float>'] });
    expect(out.symbolMapping).toEqual(sync.symbolMapping);
    expect(out.code.byteLength).toBe(sync.code.byteLength);
  });

  it('misses, then hits, the compile cache; other options miss', async () => {
    const cache = new CompileCache();
    const program = new Program(SOURCE, 'c++', { arch: 'sm_90' });
    const logs: string[] = [];
    const first = program.compile('ptx', { cache, nameExpressions: ['axpy<float>'] });
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1, writes: 1 });
    const second = program.compile('ptx', { cache, nameExpressions: ['axpy<float>'], logs: (t) => logs.push(t) });
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, writes: 1 });
    expect(second.code).toEqual(first.code);
    expect(second.symbolMapping).toEqual(first.symbolMapping);
    expect(logs).toEqual([]);
    // A different option, target or name expression is a different entry.
    new Program(SOURCE, 'c++', { arch: 'sm_90', fastMath: true }).compile('ptx', {
      cache,
      nameExpressions: ['axpy<float>'],
    });
    program.compile('ptx', { cache });
    program.compile('cubin', { cache, nameExpressions: ['axpy<float>'] });
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 4, writes: 4 });
    expect((await program.compileAsync('ptx', { cache })).code).toEqual(program.compile('ptx').code);
    expect(cache.stats().hits).toBe(2);
  });

  it('finds in a disk cache what another process compiled', () => {
    const directory = join(root, 'disk');
    const program = new Program(SOURCE, 'c++', { arch: 'sm_90' });
    const compiled = program.compile('cubin', { cache: new CompileCache({ directory }) });
    const later = new CompileCache({ directory });
    const cached = program.compile('cubin', { cache: later });
    expect(later.stats()).toMatchObject({ diskHits: 1, misses: 0 });
    expect(cached.code).toEqual(compiled.code);
  });

  itWhen(
    [deviceMissing === undefined ? 'a CUDA device is present here' : undefined],
    'asks for arch where there is no device',
    () => {
      const error = errorOf<ArchitectureRequiredError>(() => {
        new Program(SOURCE, 'c++').compile('ptx');
      });
      expect(error).toBeInstanceOf(ArchitectureRequiredError);
      expect(error!.message).toContain("pass arch explicitly, for example { arch: 'sm_90' }");
      expect(error!.message).not.toMatch(/in order:\)/); // a whole sentence, the places in the cause
    },
  );
});
