import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';

// An illegal address poisons the context for good: run it in a child process
// so that the other GPU tests keep a healthy context.
const DIST = join(import.meta.dirname, '..', 'dist', 'index.js');

const CHILD = `
import { driver, nvrtc, CudaError } from ${JSON.stringify(DIST)};
driver.cuInit(0);
const dev = driver.cuDeviceGet(0);
driver.cuCtxSetCurrent(driver.cuDevicePrimaryCtxRetain(dev));
const major = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
const minor = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
const prog = nvrtc.nvrtcCreateProgram('extern "C" __global__ void bad(float* p) { p[threadIdx.x] = 1.0f; }', 'bad.cu', [], []);
nvrtc.nvrtcCompileProgram(prog, ['-arch=sm_' + (major * 10 + minor)]);
const lib = driver.cuLibraryLoadData(nvrtc.nvrtcGetCUBIN(prog));
const f = driver.cuKernelGetFunction(driver.cuLibraryGetKernel(lib, 'bad'));
const args = new BigUint64Array([16n]); // address 16: never mapped
driver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0n, driver.createKernelParams(args.buffer, [0], [8]));
const report = (label, fn) => {
  try { fn(); console.log(label + '=ok'); }
  catch (e) { console.log(label + '=' + e.name + ':' + e.codeName + ':' + (e instanceof CudaError)); }
};
report('sync', () => driver.cuCtxSynchronize());
report('after', () => driver.cuMemAlloc(16));
console.log('alive');
`;

describeGpu('a kernel that faults', () => {
  it('reports the illegal address as a sticky CudaError and the process lives on', () => {
    expect(existsSync(DIST), `${DIST} is missing: build first`).toBe(true);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toContain('sync=CudaError:CUDA_ERROR_ILLEGAL_ADDRESS:true');
    expect(out).toContain('after=CudaError:CUDA_ERROR_ILLEGAL_ADDRESS:true');
    expect(out).toContain('alive');
  });
});
