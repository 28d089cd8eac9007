// A kernel linked with the code its externals name, against the real
// toolchain of this machine: the link itself needs nvJitLink or a driver
// with a device (the GPU host has them); without either, how it fails.
import { errorOf } from '@cuda-js/test-support/errors';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompileCache,
  LinkError,
  LinkerUnavailableError,
  ObjectCode,
  Program,
  UnsupportedOptionError,
} from '@cuda-js/program';
import { describe, expect, it } from 'vitest';
import { MUL_F32_CUDA, MUL_F32_PTX } from '../linked-code-fixtures.test-support.js';
import { KernelBuilder, call, exprStmt, f32, i64, valueArg } from '../lower/ir-builders.test-support.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import { NVPTX64_DATA_LAYOUT, NVPTX64_TRIPLE } from '../lower/nvvm-module.js';
import type { ExternalCall } from '../typing/typed-ir.js';
import { compileKernel, compileKernelAsync } from './compile-kernel.js';
import { linksLtoir } from './compile-route.js';
import { linkInputsOf, linkKernel, linkKernelAsync } from './linked-kernel.js';
import {
  describeWhen,
  itWhen,
  linkerMissing,
  nvJitLinkMissing,
  nvrtcMissing,
  nvvmMissing,
} from './toolchain-environment.test-support.js';

const MUL: ExternalCall = { symbol: 'mul_f32', args: ['f32', 'f32'], returns: 'f32', link: [] };

/** x[0] = mul_f32(x[0], 2), as NVVM IR. */
function mulIr(): string {
  const k = new KernelBuilder('scale');
  const x = k.array('x', 'f32');
  const mul = k.external(MUL);
  return lowerKernel(
    k.build([exprStmt(x.store([i64(0)], call(mul, MUL, [valueArg(x.load(i64(0))), valueArg(f32(2))])))]),
  );
}

/** mul_f32 as an NVVM IR library module, for LTO-IR made by libNVVM. */
const MUL_F32_NVVM = `target datalayout = "${NVPTX64_DATA_LAYOUT}"
target triple = "${NVPTX64_TRIPLE}"

define float @mul_f32(float %a, float %b) {
  %r = fmul float %a, %b
  ret float %r
}

!nvvmir.version = !{!0}
!0 = !{i32 2, i32 0}
`;

describe('the link inputs of a typed kernel', () => {
  it('are every input of its externals, each once (by object, and by text for cuda and ptx)', () => {
    const lib = { cuda: MUL_F32_CUDA };
    const ptx = { ptx: MUL_F32_PTX };
    const code = ObjectCode.fromPtxText(MUL_F32_PTX, { name: 'mul.ptx' });
    const externals: ExternalCall[] = [
      { ...MUL, link: [lib, ptx] },
      { symbol: 'g', args: [], returns: 'i32', link: [lib, { cuda: MUL_F32_CUDA }, code] },
      {
        symbol: 'h',
        args: [],
        returns: 'i32',
        link: [{ ptx: MUL_F32_PTX }, code, { cuda: MUL_F32_CUDA, name: 'other.cu' }],
      },
    ];
    expect(linkInputsOf({ externals })).toEqual([lib, ptx, code, { cuda: MUL_F32_CUDA, name: 'other.cu' }]);
    expect(linkInputsOf({ externals: [] })).toEqual([]);
    code.close();
  });

  it('take link-time optimization when one is LTO-IR', () => {
    const lto = ObjectCode.fromLtoir(new Uint8Array([1, 2, 3]), { name: 'f.ltoir' });
    expect(linksLtoir([{ ptx: MUL_F32_PTX }, { cuda: MUL_F32_CUDA }])).toBe(false);
    expect(linksLtoir([{ ptx: MUL_F32_PTX }, lto])).toBe(true);
  });

  it("refuse the 'ptx' route, which cannot link", () => {
    expect(() =>
      compileKernel(mulIr(), 'scale', { arch: 'sm_90', route: 'ptx', link: [{ ptx: MUL_F32_PTX }] }),
    ).toThrow(UnsupportedOptionError);
    expect(() =>
      compileKernel(mulIr(), 'scale', { arch: 'sm_90', route: 'ptx', link: [{ ptx: MUL_F32_PTX }] }),
    ).toThrow(/use route 'cubin' or 'auto'/);
  });
});

describeWhen([nvvmMissing, linkerMissing], 'a kernel linked with its code (nvJitLink or the driver)', () => {
  it('links the kernel with PTX written by hand into a cubin that defines the kernel', () => {
    const linked = linkKernel(mulIr(), { arch: 'sm_90', name: 'scale' }, [{ ptx: MUL_F32_PTX }]);
    expect(linked.objectCode.codeType).toBe('cubin');
    expect(linked.ptx).toMatch(/\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32/);
    linked.objectCode.close();
  });

  itWhen(
    [nvrtcMissing],
    'links CUDA C++ compiled by NVRTC as relocatable device code, and takes the link from the cache the second time',
    () => {
      const cache = new CompileCache();
      const first = linkKernel(mulIr(), { arch: 'sm_90', cache }, [{ cuda: MUL_F32_CUDA }]);
      const before = cache.stats();
      const second = linkKernel(mulIr(), { arch: 'sm_90', cache }, [{ cuda: MUL_F32_CUDA }]);
      expect(second.objectCode.code).toEqual(first.objectCode.code);
      // the kernel's PTX, the C++'s PTX and the link: all three from the cache
      expect(cache.stats().hits - before.hits).toBe(3);
      first.objectCode.close();
      second.objectCode.close();
    },
  );

  itWhen(
    [nvrtcMissing],
    "compiles linked CUDA C++ whose #include is found on its includePaths or in its headers (numba's extra NVRTC search paths)",
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'cuda-js-link-include-'));
      try {
        writeFileSync(join(dir, 'mul-impl.h'), '#define MUL_IMPL(a, b) ((a) * (b))\n');
        const source =
          '#include "mul-impl.h"\nextern "C" __device__ float mul_f32(float a, float b) { return MUL_IMPL(a, b); }';
        const fromFolder = linkKernel(mulIr(), { arch: 'sm_90', name: 'scale' }, [
          { cuda: source, includePaths: [dir] },
        ]);
        expect(fromFolder.objectCode.codeType).toBe('cubin');
        fromFolder.objectCode.close();
        const fromMemory = linkKernel(mulIr(), { arch: 'sm_90', name: 'scale' }, [
          { cuda: source, headers: { 'mul-impl.h': '#define MUL_IMPL(a, b) ((a) * (b))' } },
        ]);
        fromMemory.objectCode.close();
        // without the folder, NVRTC cannot find the header: its error says so
        expect(() => linkKernel(mulIr(), { arch: 'sm_90', name: 'scale' }, [{ cuda: source }])).toThrow(/mul-impl\.h/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('gives the same cubin on a worker thread', async () => {
    const a = linkKernel(mulIr(), { arch: 'sm_90' }, [{ ptx: MUL_F32_PTX }]);
    const b = await linkKernelAsync(mulIr(), { arch: 'sm_90' }, [{ ptx: MUL_F32_PTX }]);
    expect(b.objectCode.codeType).toBe('cubin');
    a.objectCode.close();
    b.objectCode.close();
  });

  it("throws the linker's error for a function that no input defines", () => {
    const other = MUL_F32_PTX.replace('mul_f32', 'add_f32');
    expect(() => linkKernel(mulIr(), { arch: 'sm_90' }, [{ ptx: other }])).toThrow(LinkError);
  });
});

describeWhen(
  [nvvmMissing, linkerMissing === undefined ? 'a linker is usable here' : undefined],
  'a kernel linked with its code, where no linker is',
  () => {
    it('says that no linker can make the cubin', async () => {
      expect(() => compileKernel(mulIr(), 'scale', { arch: 'sm_90', link: [{ ptx: MUL_F32_PTX }] })).toThrow(
        LinkerUnavailableError,
      );
      await expect(
        compileKernelAsync(mulIr(), 'scale', { arch: 'sm_90', link: [{ ptx: MUL_F32_PTX }] }),
      ).rejects.toThrow(LinkerUnavailableError);
    });
  },
);

describeWhen([nvvmMissing], 'a kernel linked with LTO-IR', () => {
  const ltoir = (): ObjectCode => new Program(MUL_F32_NVVM, 'nvvm', { arch: 'sm_90', name: 'mul.ll' }).compile('ltoir');

  itWhen(
    [nvJitLinkMissing === undefined ? 'nvJitLink is present here' : undefined],
    'says that only nvJitLink links it, where nvJitLink is absent',
    () => {
      const input = ltoir();
      const error = errorOf<unknown>(() => {
        linkKernel(mulIr(), { arch: 'sm_90', name: 'scale' }, [input]);
      });
      expect(error).toBeInstanceOf(LinkerUnavailableError);
      expect((error as Error).message).toMatch(
        /nvJitLink: .*the kernel 'scale' links LTO-IR \('mul\.ll'\), which only nvJitLink links/,
      );
      input.close();
    },
  );

  itWhen(
    [nvJitLinkMissing],
    'links the kernel as LTO-IR with it through nvJitLink (the kernel has no PTX of its own then)',
    () => {
      const input = ltoir();
      const linked = linkKernel(mulIr(), { arch: 'sm_90', fastMath: true }, [
        input,
        { ptx: MUL_F32_PTX.replace('mul_f32', 'unused_f32') },
      ]);
      expect(linked.objectCode.codeType).toBe('cubin');
      expect(linked.ptx).toBe('');
      linked.objectCode.close();
      input.close();
    },
  );
});
