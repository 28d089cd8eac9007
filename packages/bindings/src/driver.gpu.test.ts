import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CudaError, driver, nvrtc, type CUcontext, type CUdeviceptr } from './index.js';
import { compile, primaryContext } from './test-fixtures/gpu-context.js';
import { SAXPY_CU } from './test-fixtures/kernels.js';

const A = driver.CUdevice_attribute;

describeGpu('driver on a GPU', () => {
  let dev = 0;
  let ctx: CUcontext;
  let sm = 0;
  beforeAll(() => {
    ({ dev, ctx, sm } = primaryContext());
  });
  afterAll(() => {
    driver.cuDevicePrimaryCtxRelease(dev);
  });

  it('lists devices and their attributes', () => {
    expect(driver.cuDeviceGetCount()).toBeGreaterThanOrEqual(1);
    expect(driver.cuDeviceGetName(dev).length).toBeGreaterThan(0);
    expect(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)).toBeGreaterThan(0);
    expect(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev)).toBeGreaterThanOrEqual(1024);
    expect(sm).toBeGreaterThanOrEqual(50);
    expect(driver.cuDeviceTotalMem(dev)).toBeGreaterThan(1n << 30n);
    const uuid = driver.cuDeviceGetUuid(dev);
    expect(uuid).toBeInstanceOf(Uint8Array);
    expect(uuid.length).toBe(16);
    expect(uuid.some((b) => b !== 0)).toBe(true);
    expect(driver.cuDeviceGetPCIBusId(dev)).toMatch(/^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9]$/i);
    expect(driver.cuDriverGetVersion()).toBeGreaterThanOrEqual(12000);
  });

  it('makes the primary context current', () => {
    expect(driver.cuCtxGetCurrent()).toBe(ctx);
    expect(driver.cuCtxGetDevice()).toBe(dev);
    const { free, total } = driver.cuMemGetInfo();
    expect(typeof free).toBe('bigint');
    expect(free).toBeLessThanOrEqual(total);
    expect(total).toBe(driver.cuDeviceTotalMem(dev));
  });

  it('allocates, copies both ways, sets and frees device memory with checked data', () => {
    const n = 1024;
    const bytes = n * 4;
    const p = driver.cuMemAlloc(bytes);
    const q = driver.cuMemAlloc(BigInt(bytes));
    try {
      const src = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 7);
      driver.cuMemcpyHtoD(p, src, bytes);
      driver.cuMemcpyDtoD(q, p, bytes);
      const back = new Float32Array(n);
      driver.cuMemcpyDtoH(back, q, bytes);
      expect(back).toEqual(src);
      driver.cuMemsetD32(p, 0x3f800000, n); // 1.0f
      driver.cuMemcpyDtoH(back, p, bytes);
      expect(back.every((v) => v === 1)).toBe(true);
      expect(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p)).toBe(
        driver.CUmemorytype.CU_MEMORYTYPE_DEVICE,
      );
      expect(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, p)).toBe(ctx);
      expect(
        driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_SIZE, p),
      ).toBeGreaterThanOrEqual(BigInt(bytes));
      expect(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p)).toBe(dev);
    } finally {
      driver.cuMemFree(p);
      driver.cuMemFree(q);
    }
  });

  it('runs stream-ordered allocation and async copies on a stream', async () => {
    const stream = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
    const start = driver.cuEventCreate(0);
    const end = driver.cuEventCreate(0);
    try {
      driver.cuEventRecord(start, stream);
      const p = driver.cuMemAllocAsync(256, stream);
      const src = new Uint8Array(256).map((_, i) => i);
      driver.cuMemcpyHtoDAsync(p, src, 256, stream);
      const back = new Uint8Array(256);
      driver.cuMemcpyDtoHAsync(back, p, 256, stream);
      driver.cuMemFreeAsync(p, stream);
      driver.cuEventRecord(end, stream);
      await driver.cuStreamSynchronizeAsync(stream);
      await driver.cuEventSynchronizeAsync(end);
      expect(driver.cuStreamQuery(stream)).toBe(true);
      expect(driver.cuEventQuery(end)).toBe(true);
      expect(back).toEqual(src);
      expect(driver.cuEventElapsedTime(start, end)).toBeGreaterThanOrEqual(0);
      expect(driver.cuStreamGetCtx(stream)).toBe(ctx);
      expect(driver.cuStreamGetFlags(stream)).toBe(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
    } finally {
      driver.cuEventDestroy(start);
      driver.cuEventDestroy(end);
      driver.cuStreamDestroy(stream);
    }
  });

  it('compiles with NVRTC to a cubin, loads it as a library and launches it with checked results', async () => {
    const cubin = compile(SAXPY_CU, [`-arch=sm_${sm}`], (prog) => nvrtc.nvrtcGetCUBIN(prog));
    const lib = driver.cuLibraryLoadData(cubin);
    const libAsync = await driver.cuLibraryLoadDataAsync(cubin);
    const n = 1000;
    const bytes = n * 4;
    const x = Float32Array.from({ length: n }, (_, i) => i);
    const y = Float32Array.from({ length: n }, (_, i) => 2 * i + 1);
    const dx = driver.cuMemAlloc(bytes);
    const dy = driver.cuMemAlloc(bytes);
    const dout = driver.cuMemAlloc(bytes);
    try {
      driver.cuMemcpyHtoD(dx, x, bytes);
      driver.cuMemcpyHtoD(dy, y, bytes);
      const kernel = driver.cuLibraryGetKernel(lib, 'saxpy');
      const f = driver.cuKernelGetFunction(kernel);
      expect(driver.cuKernelGetParamInfo(kernel, 1)).toEqual({ paramOffset: 8n, paramSize: 8n });
      expect(
        driver.cuFuncGetAttribute(driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
      ).toBeGreaterThan(0);
      // saxpy(float a, const float* x, const float* y, float* out, unsigned n): offsets 0, 8, 16, 24, 32
      const buffer = new ArrayBuffer(40);
      const view = new DataView(buffer);
      const params = driver.createKernelParams(buffer, [0, 8, 16, 24, 32], [4, 8, 8, 8, 4]);
      view.setFloat32(0, 3, true);
      view.setBigUint64(8, dx, true);
      view.setBigUint64(16, dy, true);
      view.setBigUint64(24, dout, true);
      view.setUint32(32, n, true);
      driver.cuLaunchKernel(f, Math.ceil(n / 128), 1, 1, 128, 1, 1, 0, 0n, params);
      await driver.cuCtxSynchronizeAsync();
      const out = new Float32Array(n);
      driver.cuMemcpyDtoH(out, dout, bytes);
      expect(out).toEqual(x.map((v, i) => 3 * v + y[i]!));

      // the same launch through cuLaunchKernelEx, with new values in the same buffer
      view.setFloat32(0, -1, true);
      const f2 = driver.cuKernelGetFunction(driver.cuLibraryGetKernel(libAsync, 'saxpy'));
      driver.cuLaunchKernelEx({ gridDimX: Math.ceil(n / 256), blockDimX: 256, hStream: 0n, attrs: [] }, f2, params);
      driver.cuCtxSynchronize();
      driver.cuMemcpyDtoH(out, dout, bytes);
      expect(out).toEqual(x.map((v, i) => -v + y[i]!));
      expect(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(f, 128, 0)).toBeGreaterThan(0);
      const { minGridSize, blockSize } = driver.cuOccupancyMaxPotentialBlockSize(f, null, 0, 0);
      expect(minGridSize).toBeGreaterThan(0);
      expect(blockSize).toBeGreaterThan(0);
    } finally {
      for (const p of [dx, dy, dout] as CUdeviceptr[]) driver.cuMemFree(p);
      driver.cuLibraryUnload(lib);
      driver.cuLibraryUnload(libAsync);
    }
  });

  it('loads PTX as a module on a worker thread into the current context', async () => {
    const ptx = compile(SAXPY_CU, [`-arch=compute_${sm}`], (prog) => nvrtc.nvrtcGetPTX(prog));
    const mod = await driver.cuModuleLoadDataAsync(ptx);
    const f = driver.cuModuleGetFunction(mod, 'saxpy');
    expect(typeof f).toBe('bigint');
    expect(() => driver.cuModuleGetFunction(mod, 'no_such_kernel')).toThrow(CudaError);
    driver.cuModuleUnload(mod);
    const mod2 = driver.cuModuleLoadData(ptx);
    driver.cuModuleUnload(mod2);
  });

  it('calls a JS host function from the stream, without blocking the driver thread', async () => {
    const stream = driver.cuStreamCreate(0);
    try {
      const order: string[] = [];
      const hostFn = new Promise<void>((resolve) =>
        driver.cuLaunchHostFunc(stream, () => (order.push('host'), resolve())),
      );
      const callback = new Promise<[bigint, number]>((resolve) =>
        driver.cuStreamAddCallback(stream, (s, status) => (order.push('callback'), resolve([s, status]))),
      );
      await hostFn;
      expect(await callback).toEqual([stream, 0]);
      await driver.cuStreamSynchronizeAsync(stream);
      expect(order).toEqual(['host', 'callback']);
    } finally {
      driver.cuStreamDestroy(stream);
    }
  });

  it('uses pools and struct arguments', () => {
    const pool = driver.cuDeviceGetDefaultMemPool(dev);
    const p = driver.cuMemAllocFromPoolAsync(1024, pool, 0n);
    driver.cuMemFreeAsync(p, 0n);
    driver.cuCtxSynchronize();
    const own = driver.cuMemPoolCreate({
      allocType: driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED,
      handleTypes: driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE,
      location: { type: driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
    });
    expect(typeof own).toBe('bigint');
    driver.cuMemPoolDestroy(own);
  });
});
