import { errorOf } from '@cuda-js/test-support/errors';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  clearCache,
  EnvironmentValueError,
  findLibrary,
  LibraryNotFoundError,
  SUPPORTED_LIBRARIES,
  UnknownNameError,
  type SearchOptions,
} from './index.js';

const base = mkdtempSync(join(tmpdir(), 'pathfinder-lib-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const MACHINES: Record<string, number> = {
  x64: 62,
  ia32: 3,
  arm64: 183,
  arm: 40,
  ppc64: 21,
  s390x: 22,
  riscv64: 243,
  loong64: 258,
};
const IS_64 = ['x64', 'arm64', 'ppc64', 's390x', 'riscv64', 'loong64'].includes(process.arch);

/** The ELF header of an (empty) shared object of this machine: what pathfinder checks before dlopen. */
function elfHeader(): Buffer {
  const b = Buffer.alloc(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, IS_64 ? 2 : 1, endianness() === 'LE' ? 1 : 2, 1]);
  const le = endianness() === 'LE';
  (le ? b.writeUInt16LE : b.writeUInt16BE).call(b, 3, 16); // ET_DYN
  (le ? b.writeUInt16LE : b.writeUInt16BE).call(b, MACHINES[process.arch] ?? 0, 18);
  return b;
}

/** A fresh fake machine: files named as the real sonames, in the real layouts. */
function fakeTree(files: readonly string[]): string {
  const root = join(base, `t${counter++}`);
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), elfHeader());
  }
  return root;
}

/** Options that see only the fake tree: no python3, no real ldconfig, no real /usr/local/cuda. */
function only(root: string, extra: Partial<SearchOptions> & { env?: Record<string, string> } = {}): SearchOptions {
  return {
    sitePackages: [join(root, 'site-packages')],
    loaderCache: [],
    defaultToolkitRoot: join(root, 'usr/local/cuda'),
    systemDirectories: false,
    ...extra,
    env: extra.env ?? {},
  };
}

describe('findLibrary: search order', () => {
  // nvrtc 13 in every source, so that each source in turn can be taken away.
  const root = fakeTree([
    'override/libnvrtc.so.13',
    'site-packages/nvidia/cu13/lib/libnvrtc.so.13',
    'conda/lib/libnvrtc.so.13',
    'ld/libnvrtc.so.13',
    'ldcache/libnvrtc.so.13',
    'loader-default/libnvrtc.so.13',
    'cuda-path/lib64/libnvrtc.so.13',
    'cuda-home/lib64/libnvrtc.so.13',
    'usr/local/cuda/lib64/libnvrtc.so.13',
  ]);
  const sources = [
    { via: 'override', env: { CUDA_JS_LIB_NVRTC: join(root, 'override/libnvrtc.so.13') } },
    { via: 'site-packages', sitePackages: [join(root, 'site-packages')] },
    { via: 'conda', env: { CONDA_PREFIX: join(root, 'conda') } },
    { via: 'LD_LIBRARY_PATH', env: { LD_LIBRARY_PATH: `${join(root, 'nowhere')}:${join(root, 'ld')}` } },
    { via: 'ldconfig', loaderCache: [{ soname: 'libnvrtc.so.13', path: join(root, 'ldcache/libnvrtc.so.13') }] },
    { via: 'system', loaderDefaultFolders: [join(root, 'nowhere'), join(root, 'loader-default')] },
    { via: 'CUDA_PATH', env: { CUDA_PATH: join(root, 'cuda-path') } },
    { via: 'CUDA_HOME', env: { CUDA_HOME: join(root, 'cuda-home') } },
    { via: 'default toolkit' },
  ] as const;

  for (let i = 0; i < sources.length; i++) {
    const expected = sources[i]!;
    it(`takes ${expected.via} when no earlier source has the library`, () => {
      const later = sources.slice(i);
      const env = Object.assign({}, ...later.map((s) => ('env' in s ? s.env : {})));
      const options: SearchOptions = {
        ...only(root, { env }),
        sitePackages: later.some((s) => s.via === 'site-packages') ? [join(root, 'site-packages')] : [],
        loaderCache: later.flatMap((s) => ('loaderCache' in s ? s.loaderCache : [])),
        loaderDefaultFolders: later.flatMap((s) => ('loaderDefaultFolders' in s ? s.loaderDefaultFolders : [])),
      };
      const found = findLibrary('nvrtc', options);
      expect(found.foundVia).toBe(expected.via);
      expect(found.name).toBe('nvrtc');
      expect(found.cudaMajor).toBe(13);
      expect(found.path.startsWith(root)).toBe(true);
    });
  }

  it('prefers the newest soname within one folder', () => {
    const r = fakeTree(['usr/local/cuda/lib64/libnvrtc.so.12', 'usr/local/cuda/lib64/libnvrtc.so.13']);
    expect(findLibrary('nvrtc', only(r)).path).toBe(join(r, 'usr/local/cuda/lib64/libnvrtc.so.13'));
  });

  it('finds nvrtc-builtins by a minor-version pattern, and libNVVM under nvvm/lib64', () => {
    const r = fakeTree([
      'usr/local/cuda/lib64/libnvrtc-builtins.so.13.0',
      'usr/local/cuda/nvvm/lib64/libnvvm.so.4',
      'usr/local/cuda/version.json',
    ]);
    writeFileSync(
      join(r, 'usr/local/cuda/version.json'),
      JSON.stringify({ cuda: { name: 'CUDA SDK', version: '13.0.2' } }),
    );
    expect(findLibrary('nvrtc-builtins', only(r)).path).toBe(join(r, 'usr/local/cuda/lib64/libnvrtc-builtins.so.13.0'));
    const nvvm = findLibrary('nvvm', only(r));
    expect(nvvm.path).toBe(join(r, 'usr/local/cuda/nvvm/lib64/libnvvm.so.4'));
    // libnvvm.so.4 is the soname of 11, 12 and 13: the major comes from version.json
    expect(nvvm.cudaMajor).toBe(13);
    expect(nvvm.version).toBe('13.0.2');
  });

  it('reads the CUDA version of a file from a cuda-X.Y folder or a cuXX wheel', () => {
    const r = fakeTree(['opt/cuda-12.6/nvvm/lib64/libnvvm.so.4']);
    const nvvm = findLibrary('nvvm', only(r, { env: { CUDA_HOME: join(r, 'opt/cuda-12.6') } }));
    expect([nvvm.cudaMajor, nvvm.version, nvvm.foundVia]).toEqual([12, '12.6', 'CUDA_HOME']);
  });

  it('looks for the driver and NVML only in the system loader, never in a toolkit', () => {
    const r = fakeTree([
      'usr/local/cuda/lib64/libcuda.so.1',
      'usr/local/cuda/lib64/stubs/libcuda.so',
      'ld/libcuda.so.1',
      'lib/libnvidia-ml.so.1',
    ]);
    expect(() => findLibrary('cuda', only(r))).toThrow(LibraryNotFoundError);
    expect(findLibrary('cuda', only(r, { env: { LD_LIBRARY_PATH: join(r, 'ld') } })).foundVia).toBe('LD_LIBRARY_PATH');
    const viaCache = findLibrary(
      'nvml',
      only(r, { loaderCache: [{ soname: 'libnvidia-ml.so.1', path: join(r, 'lib/libnvidia-ml.so.1') }] }),
    );
    expect(viaCache).toMatchObject({ foundVia: 'ldconfig', path: join(r, 'lib/libnvidia-ml.so.1') });
  });
});

describe('findLibrary: the folders of the architecture searched', () => {
  // A toolkit that cross-compiles holds every target's libraries; lib64 is absent so that only targets/ can answer.
  const toolkit = ['x86_64-linux', 'sbsa-linux'].map((target) => `usr/local/cuda/targets/${target}/lib/libnvrtc.so.13`);

  it("takes the toolkit's targets/x86_64-linux on x64 and targets/sbsa-linux on arm64, never the other", () => {
    const r = fakeTree(toolkit);
    expect(findLibrary('nvrtc', only(r, { arch: 'x64' })).path).toBe(
      join(r, 'usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13'),
    );
    expect(findLibrary('nvrtc', only(r, { arch: 'arm64' })).path).toBe(
      join(r, 'usr/local/cuda/targets/sbsa-linux/lib/libnvrtc.so.13'),
    );
    expect(findLibrary('nvrtc', only(r)).path).toContain(
      process.arch === 'arm64' ? 'targets/sbsa-linux/' : 'targets/x86_64-linux/',
    );
  });

  it("takes a Jetson toolkit's targets/aarch64-linux on arm64 only, and says where it looked", () => {
    const r = fakeTree(['usr/local/cuda/targets/aarch64-linux/lib/libnvrtc.so.13']);
    expect(findLibrary('nvrtc', only(r, { arch: 'arm64' })).foundVia).toBe('default toolkit');
    const error = (() => {
      try {
        findLibrary('nvrtc', only(r, { arch: 'x64' }));
      } catch (e) {
        return e as LibraryNotFoundError;
      }
      throw new Error('found an arm64-only library on x64');
    })();
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.message).toContain('lib64, lib, targets/x86_64-linux/lib');
    expect(error.message).not.toContain('aarch64-linux');
  });

  it('searches only lib64 and lib of a toolkit on an architecture CUDA does not ship for', () => {
    const r = fakeTree([...toolkit, 'usr/local/cuda/lib/libnvrtc.so.13']);
    expect(findLibrary('nvrtc', only(r, { arch: 'riscv64' })).path).toBe(join(r, 'usr/local/cuda/lib/libnvrtc.so.13'));
  });

  it("finds the driver in the loader's default folders after its cache, where ldconfig was not run", () => {
    const r = fakeTree(['usr/lib/aarch64-linux-gnu/libcuda.so.1', 'usr/lib64/libnvidia-ml.so.1', 'cache/libcuda.so.1']);
    const folders = [join(r, 'usr/lib64'), join(r, 'usr/lib/aarch64-linux-gnu')];
    expect(findLibrary('cuda', only(r, { loaderDefaultFolders: folders }))).toMatchObject({
      foundVia: 'system',
      path: join(r, 'usr/lib/aarch64-linux-gnu/libcuda.so.1'),
    });
    const cached = [{ soname: 'libcuda.so.1', path: join(r, 'cache/libcuda.so.1') }];
    expect(findLibrary('cuda', only(r, { loaderDefaultFolders: folders, loaderCache: cached })).foundVia).toBe(
      'ldconfig',
    );
    expect(() => findLibrary('cuda', only(r, { loaderDefaultFolders: [join(r, 'usr/lib64')] }))).toThrow(
      /\[system\] .*usr\/lib64: none of libcuda\.so\.1 here/,
    );
  });
});

describe('findLibrary: only loadable shared objects reach dlopen', () => {
  it('falls through a stale ldconfig entry (its file was removed) to the next place', () => {
    const r = fakeTree(['usr/local/cuda/lib64/libnvrtc.so.13']);
    const stale = [{ soname: 'libnvrtc.so.13', path: join(r, 'removed/libnvrtc.so.13') }];
    const found = findLibrary('nvrtc', only(r, { loaderCache: stale }));
    expect(found.foundVia).toBe('default toolkit');
  });

  it('refuses an override that is a FIFO, a truncated ELF, not an ELF, or of another class, without opening it for long', () => {
    const r = fakeTree([]);
    mkdirSync(r, { recursive: true });
    const fifo = join(r, 'libnvrtc.so.13');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status === 0) {
      expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_LIB_NVRTC: fifo } }))).toThrow(/a FIFO, not a file/);
    }
    const truncated = join(r, 'truncated.so');
    const header = elfHeader();
    const wide = IS_64;
    // one PT_LOAD program header whose segment ends far past the 120-byte file
    const file = Buffer.alloc(wide ? 120 : 84);
    header.copy(file);
    const le = endianness() === 'LE';
    const w16 = (v: number, o: number) => (le ? file.writeUInt16LE(v, o) : file.writeUInt16BE(v, o));
    const w32 = (v: number, o: number) => (le ? file.writeUInt32LE(v, o) : file.writeUInt32BE(v, o));
    const wWord = (v: number, o: number) =>
      wide ? (le ? file.writeBigUInt64LE(BigInt(v), o) : file.writeBigUInt64BE(BigInt(v), o)) : w32(v, o);
    wWord(wide ? 64 : 52, wide ? 32 : 28);
    w16(wide ? 56 : 32, wide ? 54 : 42);
    w16(1, wide ? 56 : 44);
    const ph = wide ? 64 : 52;
    w32(1, ph);
    wWord(0, ph + (wide ? 8 : 4));
    wWord(1 << 20, ph + (wide ? 32 : 16));
    writeFileSync(truncated, file);
    expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_LIB_NVRTC: truncated } }))).toThrow(
      /truncated ELF file/,
    );
    const text = join(r, 'text.so');
    writeFileSync(text, 'not really an ELF file');
    expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_LIB_NVRTC: text } }))).toThrow(/not an ELF file/);
    const other = join(r, 'other-class.so');
    const otherHeader = elfHeader();
    otherHeader[4] = IS_64 ? 1 : 2;
    writeFileSync(other, otherHeader);
    expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_LIB_NVRTC: other } }))).toThrow(
      /-bit ELF file; this process is/,
    );
  });

  it('formats what it cannot name without throwing', () => {
    expect(() => findLibrary({ toString: () => 'x', n: 1n } as never)).toThrow(UnknownNameError);
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => findLibrary(circular as never)).toThrow(UnknownNameError);
  });

  it('finds CUDA 12 wheels in their per-component folders', () => {
    const r = fakeTree([
      'site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12',
      'site-packages/nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so.4',
    ]);
    expect(findLibrary('nvJitLink', only(r))).toMatchObject({ foundVia: 'site-packages', cudaMajor: 12 });
    expect(findLibrary('nvvm', only(r)).foundVia).toBe('site-packages');
  });
});

describe('findLibrary: NCCL', () => {
  it('finds libnccl.so.2 in the nvidia-nccl-cu13 wheel, with no CUDA major claimed', () => {
    const r = fakeTree(['site-packages/nvidia/nccl/lib/libnccl.so.2', 'usr/local/cuda/lib64/libnccl.so.2']);
    const nccl = findLibrary('nccl', only(r));
    expect(nccl).toMatchObject({
      foundVia: 'site-packages',
      path: join(r, 'site-packages/nvidia/nccl/lib/libnccl.so.2'),
      cudaMajor: undefined,
    });
    expect(nccl.notes).toEqual([]);
  });

  it("finds a system NCCL through the loader cache, then a toolkit's lib64", () => {
    const r = fakeTree(['lib/libnccl.so.2', 'usr/local/cuda/lib64/libnccl.so.2']);
    const viaCache = findLibrary(
      'nccl',
      only(r, { loaderCache: [{ soname: 'libnccl.so.2', path: join(r, 'lib/libnccl.so.2') }] }),
    );
    expect(viaCache).toMatchObject({ foundVia: 'ldconfig', path: join(r, 'lib/libnccl.so.2') });
    expect(findLibrary('nccl', only(r))).toMatchObject({
      foundVia: 'default toolkit',
      path: join(r, 'usr/local/cuda/lib64/libnccl.so.2'),
    });
    expect(findLibrary('nccl', only(r, { env: { CUDA_JS_LIB_NCCL: join(r, 'lib') } })).foundVia).toBe('override');
  });

  it('lists where it looked when no NCCL is installed', () => {
    const r = fakeTree([]);
    const error = errorOf<LibraryNotFoundError>(() => {
      findLibrary('nccl', only(r));
    });
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error!.libraryName).toBe('nccl');
    expect(error!.message).toContain('[ldconfig] ldconfig -p: no entry for libnccl.so.2');
    expect(error!.message).toContain('or point CUDA_JS_LIB_NCCL at the file');
  });
});

describe('findLibrary: overrides', () => {
  it('takes a folder that holds the library', () => {
    const r = fakeTree(['mine/libnvJitLink.so.13', 'usr/local/cuda/lib64/libnvJitLink.so.13']);
    expect(findLibrary('nvJitLink', only(r, { env: { CUDA_JS_LIB_NVJITLINK: join(r, 'mine') } }))).toMatchObject({
      foundVia: 'override',
      path: join(r, 'mine/libnvJitLink.so.13'),
    });
  });

  it('fails on an override that points nowhere, rather than falling back', () => {
    const r = fakeTree(['usr/local/cuda/lib64/libnvrtc.so.13']);
    const error = (() => {
      try {
        findLibrary('nvrtc', only(r, { env: { CUDA_JS_LIB_NVRTC: join(r, 'missing.so') } }));
      } catch (e) {
        return e as LibraryNotFoundError;
      }
      throw new Error('expected a failure');
    })();
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.message).toContain(`CUDA_JS_LIB_NVRTC=${join(r, 'missing.so')}`);
    expect(error.message).toContain('Fix or unset CUDA_JS_LIB_NVRTC');
  });
});

describe('findLibrary: one CUDA major across the compilers', () => {
  it('prefers the major that nvJitLink and nvvm share over an earlier nvrtc of another major', () => {
    const r = fakeTree([
      'site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12',
      'usr/local/cuda/lib64/libnvrtc.so.13',
      'usr/local/cuda/lib64/libnvJitLink.so.13',
      'usr/local/cuda/nvvm/lib64/libnvvm.so.4',
    ]);
    writeFileSync(join(r, 'usr/local/cuda/version.json'), JSON.stringify({ cuda: { version: '13.0.1' } }));
    const nvrtc = findLibrary('nvrtc', only(r));
    expect(nvrtc).toMatchObject({ foundVia: 'default toolkit', cudaMajor: 13 });
    expect(nvrtc.notes.join('\n')).toMatch(
      /preferred CUDA 13 \(the major in which nvrtc, nvJitLink, nvvm are found\) over CUDA 12 at .*libnvrtc\.so\.12/,
    );
  });

  it('says so when the majors cannot agree', () => {
    const r = fakeTree(['ld/libnvrtc.so.11.2', 'usr/local/cuda/lib64/libnvJitLink.so.13']);
    writeFileSync(join(r, 'usr/local/cuda/version.json'), JSON.stringify({ cuda: { version: '13.0.1' } }));
    const nvrtc = findLibrary('nvrtc', only(r, { env: { LD_LIBRARY_PATH: join(r, 'ld') }, preferredMajor: 13 }));
    expect(nvrtc.cudaMajor).toBe(11);
    expect(nvrtc.notes).toEqual([
      'no CUDA 13 build found (asked for explicitly); using CUDA 11, which mixes CUDA majors',
    ]);
  });

  it('takes the newest major on a tie, and CUDA_JS_CUDA_MAJOR over everything', () => {
    const r = fakeTree(['usr/local/cuda/lib64/libnvrtc.so.12', 'usr/local/cuda/lib64/libnvrtc.so.13']);
    expect(findLibrary('nvrtc', only(r)).cudaMajor).toBe(13);
    expect(findLibrary('nvrtc', only(r, { env: { CUDA_JS_CUDA_MAJOR: '12' } })).cudaMajor).toBe(12);
    expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_CUDA_MAJOR: 'twelve' } }))).toThrow(
      /CUDA_JS_CUDA_MAJOR must be 11, 12 or 13/,
    );
    expect(() => findLibrary('nvrtc', only(r, { env: { CUDA_JS_CUDA_MAJOR: 'twelve' } }))).toThrow(
      EnvironmentValueError,
    );
  });
});

describe('findLibrary: errors', () => {
  it('lists every place tried, in order, with why each failed', () => {
    const r = fakeTree(['site-packages/nvidia/cu13/lib/libcublas.so.13']);
    const error = errorOf<LibraryNotFoundError>(() => {
      findLibrary('nvJitLink', only(r, { env: { LD_LIBRARY_PATH: join(r, 'nope'), CUDA_HOME: join(r, 'home') } }));
    });
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error!.libraryName).toBe('nvJitLink');
    expect(error!.attempts.map((a) => a.source)).toEqual([
      'override',
      'site-packages',
      'conda',
      'LD_LIBRARY_PATH',
      'ldconfig',
      'CUDA_HOME',
      'default toolkit',
    ]);
    expect(error!.message).toContain("CUDA library 'nvJitLink' was not found.\nPlaces tried, in order:\n");
    expect(error!.message).toContain(
      `[site-packages] ${join(r, 'site-packages/nvidia/cu13/lib')}: none of libnvJitLink.so.13 here`,
    );
    expect(error!.message).toContain(`[LD_LIBRARY_PATH] ${join(r, 'nope')}: no such folder`);
    expect(error!.message).toContain('[ldconfig] ldconfig -p: no entry for libnvJitLink.so.13, libnvJitLink.so.12');
    expect(error!.message).toContain('or point CUDA_JS_LIB_NVJITLINK at the file');
  });

  it('names an unknown library and lists the known ones', () => {
    expect(() => findLibrary('nvrtcc')).toThrow(UnknownNameError);
    expect(() => findLibrary('nvrtcc')).toThrow(
      `unknown library "nvrtcc"; known names: ${SUPPORTED_LIBRARIES.join(', ')}`,
    );
  });

  it('knows at least the libraries of the issue', () => {
    for (const name of [
      'cuda',
      'nvrtc',
      'nvrtc-builtins',
      'nvJitLink',
      'nvvm',
      'cudart',
      'nvfatbin',
      'nvml',
      'cupti',
      'cublas',
      'cublasLt',
      'cufft',
      'curand',
      'cusparse',
      'cusolver',
      'nccl',
    ]) {
      expect(SUPPORTED_LIBRARIES).toContain(name);
    }
  });
});

describe('findLibrary: cache', () => {
  beforeEach(() => clearCache());
  afterAll(() => {
    delete process.env['CUDA_JS_LIB_CUPTI'];
    clearCache();
  });

  it('caches results for the process environment until clearCache()', () => {
    const r = fakeTree(['a/libcupti.so.13', 'b/libcupti.so.13']);
    process.env['CUDA_JS_LIB_CUPTI'] = join(r, 'a');
    const first = findLibrary('cupti');
    expect(first.path).toBe(join(r, 'a/libcupti.so.13'));
    process.env['CUDA_JS_LIB_CUPTI'] = join(r, 'b');
    expect(findLibrary('cupti')).toBe(first);
    clearCache();
    expect(findLibrary('cupti').path).toBe(join(r, 'b/libcupti.so.13'));
  });
});

describe('findLibrary: the CUDA release of a toolkit without version.json', () => {
  it("reads CUDA_VERSION from the root's cuda.h", () => {
    const r = fakeTree(['usr/local/cuda/nvvm/lib64/libnvvm.so.4', 'usr/local/cuda/include/cuda.h']);
    writeFileSync(join(r, 'usr/local/cuda/include/cuda.h'), '#ifndef __cuda_cuda_h__\n#define CUDA_VERSION 12080\n');
    expect(findLibrary('nvvm', only(r))).toMatchObject({ cudaMajor: 12, version: '12.8' });
  });
});
