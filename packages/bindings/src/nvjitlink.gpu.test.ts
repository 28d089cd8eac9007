import { errorOf } from '@cuda-js/test-support/errors';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NvJitLinkError, driver, nvjitlink, nvrtc } from './index.js';
import { compile, primaryContext } from './test-fixtures/gpu-context.js';

const KERNEL_LTO = `
extern "C" __device__ float scale(float x);
extern "C" __global__ void apply(float* p) { p[threadIdx.x] = scale(p[threadIdx.x]) + 1.0f; }
`;
const SCALE_PTX_SOURCE = `extern "C" __device__ float scale(float x) { return 3.0f * x; }`;

// The crash seen on the H200 (nvJitLink 13.0) killed the process: SIGSEGV, or
// glibc's "corrupted double-linked list". So the sequence runs in a child
// process on the built package, and a crash shows as the child's signal.
const DIST = join(import.meta.dirname, '..', 'dist', 'index.js');
const CRASH_SEQUENCE = `
import { driver, nvrtc, nvjitlink, NvJitLinkError } from ${JSON.stringify(DIST)};
const KERNEL_LTO = ${JSON.stringify(KERNEL_LTO)};
const SCALE = ${JSON.stringify(SCALE_PTX_SOURCE)};
driver.cuInit(0);
const dev = driver.cuDeviceGet(0);
driver.cuCtxSetCurrent(driver.cuDevicePrimaryCtxRetain(dev));
const A = driver.CUdevice_attribute;
const sm = driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) * 10 +
  driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
const compile = (source, options, get) => {
  const prog = nvrtc.nvrtcCreateProgram(source, 'test.cu', [], []);
  try { nvrtc.nvrtcCompileProgram(prog, options); return get(prog); } finally { nvrtc.nvrtcDestroyProgram(prog); }
};
const ltoir = compile(KERNEL_LTO, ['-arch=sm_' + sm, '-dlto', '-rdc=true'], (p) => nvrtc.nvrtcGetLTOIR(p));
const scalePtx = compile(SCALE, ['-arch=compute_' + sm, '-rdc=true'], (p) => nvrtc.nvrtcGetPTX(p));
const kernelPtx = compile(KERNEL_LTO, ['-arch=compute_' + sm, '-rdc=true'], (p) => nvrtc.nvrtcGetPTX(p));
const T = nvjitlink.nvJitLinkInputType;
// Runs apply() from a linked cubin on 0..63: 'ok' when every p[i] became 3 * i + 1.
const run = (cubin) => {
  const lib = driver.cuLibraryLoadData(cubin);
  const f = driver.cuKernelGetFunction(driver.cuLibraryGetKernel(lib, 'apply'));
  const data = Float32Array.from({ length: 64 }, (_, i) => i);
  const p = driver.cuMemAlloc(data.byteLength);
  try {
    driver.cuMemcpyHtoD(p, data, data.byteLength);
    const args = new BigUint64Array([p]);
    driver.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0n, driver.createKernelParams(args.buffer, [0], [8]));
    driver.cuCtxSynchronize();
    const out = new Float32Array(64);
    driver.cuMemcpyDtoH(out, p, out.byteLength);
    return out.every((v, i) => v === 3 * i + 1) ? 'ok' : 'wrong:' + Array.from(out.slice(0, 4)).join(',');
  } finally {
    driver.cuMemFree(p);
    driver.cuLibraryUnload(lib);
  }
};
const linkLto = async (complete) => {
  const h = nvjitlink.nvJitLinkCreate(['-arch=sm_' + sm, '-lto']);
  try {
    nvjitlink.nvJitLinkAddData(h, T.NVJITLINK_INPUT_LTOIR, ltoir, 'kernel.ltoir');
    nvjitlink.nvJitLinkAddData(h, T.NVJITLINK_INPUT_PTX, scalePtx, 'scale.ptx');
    await complete(h);
    return nvjitlink.nvJitLinkGetLinkedCubin(h);
  } finally {
    nvjitlink.nvJitLinkDestroy(h);
  }
};
const linkPtx = () => {
  const h = nvjitlink.nvJitLinkCreate(['-arch=sm_' + sm]);
  try {
    nvjitlink.nvJitLinkAddData(h, T.NVJITLINK_INPUT_PTX, kernelPtx, 'kernel.ptx');
    nvjitlink.nvJitLinkAddData(h, T.NVJITLINK_INPUT_PTX, scalePtx, 'scale.ptx');
    nvjitlink.nvJitLinkComplete(h);
    return nvjitlink.nvJitLinkGetLinkedCubin(h);
  } finally {
    nvjitlink.nvJitLinkDestroy(h);
  }
};
for (let round = 0; round < 3; round++) {
  // async complete, destroy, then create again (without -lto) and link: the crash
  console.log('async' + round + '=' + run(await linkLto((h) => nvjitlink.nvJitLinkCompleteAsync(h))));
  console.log('sync' + round + '=' + run(linkPtx()));
}
// several links in flight at once, then new handles after them
const cubins = await Promise.all([0, 1, 2].map(() => linkLto((h) => nvjitlink.nvJitLinkCompleteAsync(h))));
console.log('parallel=' + cubins.map(run).join(','));
console.log('after-parallel=' + run(linkPtx()));
// a failing async link rejects with the error log (read on the linker's thread), and linking goes on
const failing = nvjitlink.nvJitLinkCreate(['-arch=sm_' + sm]);
try {
  nvjitlink.nvJitLinkAddData(failing, T.NVJITLINK_INPUT_PTX, kernelPtx, 'kernel.ptx');
  await nvjitlink.nvJitLinkCompleteAsync(failing);
  console.log('failing=resolved');
} catch (e) {
  console.log('failing=' + (e instanceof NvJitLinkError) + ':' + e.functionName + ':' + /scale/.test(e.log ?? ''));
} finally {
  nvjitlink.nvJitLinkDestroy(failing);
}
console.log('after-failing=' + run(await linkLto((h) => nvjitlink.nvJitLinkCompleteAsync(h))));
console.log('alive');
`;

describeGpu('nvJitLink on a GPU', () => {
  let dev = 0;
  let sm = 0;
  beforeAll(() => {
    ({ dev, sm } = primaryContext());
  });
  afterAll(() => driver.cuDevicePrimaryCtxRelease(dev));

  it('links an LTO-IR from NVRTC -dlto and a PTX into a cubin that runs', async () => {
    expect(nvjitlink.nvJitLinkVersion().major).toBeGreaterThanOrEqual(12);
    const ltoir = compile(KERNEL_LTO, [`-arch=sm_${sm}`, '-dlto', '-rdc=true'], (prog) => nvrtc.nvrtcGetLTOIR(prog));
    const ptx = compile(SCALE_PTX_SOURCE, [`-arch=compute_${sm}`, '-rdc=true'], (prog) => nvrtc.nvrtcGetPTX(prog));
    const link = nvjitlink.nvJitLinkCreate([`-arch=sm_${sm}`, '-lto']);
    let cubin: Uint8Array;
    try {
      nvjitlink.nvJitLinkAddData(link, nvjitlink.nvJitLinkInputType.NVJITLINK_INPUT_LTOIR, ltoir, 'kernel.ltoir');
      nvjitlink.nvJitLinkAddData(link, nvjitlink.nvJitLinkInputType.NVJITLINK_INPUT_PTX, ptx, 'scale.ptx');
      await nvjitlink.nvJitLinkCompleteAsync(link);
      cubin = nvjitlink.nvJitLinkGetLinkedCubin(link);
      expect(nvjitlink.nvJitLinkGetInfoLog(link)).toBeTypeOf('string');
    } finally {
      nvjitlink.nvJitLinkDestroy(link);
    }
    const lib = driver.cuLibraryLoadData(cubin);
    const f = driver.cuKernelGetFunction(driver.cuLibraryGetKernel(lib, 'apply'));
    const data = Float32Array.from({ length: 64 }, (_, i) => i);
    const p = driver.cuMemAlloc(data.byteLength);
    try {
      driver.cuMemcpyHtoD(p, data, data.byteLength);
      const buffer = new BigUint64Array([p]);
      driver.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0n, driver.createKernelParams(buffer.buffer, [0], [8]));
      driver.cuCtxSynchronize();
      const out = new Float32Array(64);
      driver.cuMemcpyDtoH(out, p, out.byteLength);
      expect(out).toEqual(data.map((v) => 3 * v + 1));
    } finally {
      driver.cuMemFree(p);
      driver.cuLibraryUnload(lib);
    }
  });

  it('throws NvJitLinkError with the error log for an unresolved symbol', () => {
    const ptx = compile(KERNEL_LTO, [`-arch=compute_${sm}`, '-rdc=true'], (prog) => nvrtc.nvrtcGetPTX(prog));
    const link = nvjitlink.nvJitLinkCreate([`-arch=sm_${sm}`]);
    try {
      nvjitlink.nvJitLinkAddData(link, nvjitlink.nvJitLinkInputType.NVJITLINK_INPUT_PTX, ptx, 'kernel.ptx');
      const error = errorOf<unknown>(() => {
        nvjitlink.nvJitLinkComplete(link);
      });
      expect(error).toBeInstanceOf(NvJitLinkError);
      expect((error as NvJitLinkError).functionName).toBe('nvJitLinkComplete');
      expect((error as NvJitLinkError).log).toMatch(/scale/);
    } finally {
      nvjitlink.nvJitLinkDestroy(link);
    }
  });

  it('survives nvJitLinkCompleteAsync followed by Destroy and a new Create (the H200 crash), in a child process', () => {
    expect(existsSync(DIST), `${DIST} is missing: build first`).toBe(true);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', CRASH_SEQUENCE], {
      encoding: 'utf8',
      timeout: 110_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.signal, `the child died of ${r.signal}:\n${out}`).toBeNull();
    expect(r.status, out).toBe(0);
    for (let round = 0; round < 3; round++) {
      expect(out).toContain(`async${round}=ok`);
      expect(out).toContain(`sync${round}=ok`);
    }
    expect(out).toContain('parallel=ok,ok,ok');
    expect(out).toContain('after-parallel=ok');
    expect(out).toContain('failing=true:nvJitLinkCompleteAsync:true');
    expect(out).toContain('after-failing=ok');
    expect(out).toContain('alive');
  });
});
