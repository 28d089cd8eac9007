import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NvJitLinkError, driver, nvjitlink, nvrtc } from './index.js';
import { compile, primaryContext } from './test-fixtures/gpu-context.js';

const KERNEL_LTO = `
extern "C" __device__ float scale(float x);
extern "C" __global__ void apply(float* p) { p[threadIdx.x] = scale(p[threadIdx.x]) + 1.0f; }
`;
const SCALE_PTX_SOURCE = `extern "C" __device__ float scale(float x) { return 3.0f * x; }`;

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
      driver.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0n, driver.createKernelParams(buffer.buffer, [0]));
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
      let error: unknown;
      try {
        nvjitlink.nvJitLinkComplete(link);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(NvJitLinkError);
      expect((error as NvJitLinkError).functionName).toBe('nvJitLinkComplete');
      expect((error as NvJitLinkError).log).toMatch(/scale/);
    } finally {
      nvjitlink.nvJitLinkDestroy(link);
    }
  });
});
