import { describe, expect, it } from 'vitest';
import { CudaError, driver } from './index.js';
import { haveLibrary } from './test-fixtures/libraries.js';

const hasDriver = haveLibrary('cuda');

describe('driver enums', () => {
  it('has named constants with reverse lookup', () => {
    expect(driver.CUresult.CUDA_ERROR_NO_DEVICE).toBe(100);
    expect(driver.CUresult[100]).toBe('CUDA_ERROR_NO_DEVICE');
    expect(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).toBe(16);
    expect(driver.CUdevice_attribute[16]).toBe('CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT');
    expect(driver.CUjitInputType.CU_JIT_INPUT_PTX).toBe(1);
  });
  it('are frozen', () => {
    expect(Object.isFrozen(driver.CUresult)).toBe(true);
    expect(Object.isFrozen(driver)).toBe(true);
  });
});

describe('bad input is refused before any library is used', () => {
  it('names the function and the parameter for a wrong type', () => {
    expect(() => driver.cuMemAlloc('12' as never)).toThrow(TypeError);
    expect(() => driver.cuMemAlloc('12' as never)).toThrow(
      /cuMemAlloc: parameter 'bytesize' must be a bigint or a safe-integer number, got a string/,
    );
  });
  it('refuses a number where a handle or address is needed', () => {
    expect(() => driver.cuStreamSynchronize(0 as never)).toThrow(
      /cuStreamSynchronize: parameter 'hStream' must be a bigint/,
    );
    expect(() => driver.cuMemFree(4096 as never)).toThrow(TypeError);
  });
  it('refuses a bigint wider than 64 bits instead of truncating it', () => {
    expect(() => driver.cuMemFree((1n << 64n) as never)).toThrow(RangeError);
    expect(() => driver.cuMemFree(-1n as never)).toThrow(
      /cuMemFree: parameter 'dptr' must be a bigint in \[0, 2\^64\)/,
    );
    expect(() => driver.cuMemAlloc(2 ** 60)).toThrow(/safe integer/);
  });
  it('refuses a value outside the C enum', () => {
    expect(() => driver.cuDeviceGetAttribute(123456, 0)).toThrow(RangeError);
    expect(() => driver.cuDeviceGetAttribute(123456, 0)).toThrow(
      /cuDeviceGetAttribute: parameter 'attrib' must be a value of its C enum/,
    );
  });
  it('refuses out-of-range and fractional integers', () => {
    expect(() => driver.cuInit(-1)).toThrow(/cuInit: parameter 'Flags' must fit a 32-bit unsigned integer/);
    expect(() => driver.cuInit(1.5)).toThrow(/must be an integer/);
  });
  it('counts arguments', () => {
    expect(() => (driver.cuInit as (...a: unknown[]) => unknown)()).toThrow(/cuInit: expected 1 argument, got 0/);
    expect(() => (driver.cuInit as (...a: unknown[]) => unknown)(0, 1)).toThrow(TypeError);
  });
  it('checks struct fields by name', () => {
    expect(() => driver.cuMemcpy3D({ srcMemoryType: 'host' as never })).toThrow(
      /cuMemcpy3D: parameter 'pCopy'\.srcMemoryType must be a number/,
    );
  });
});

describe('launch fast path (no device needed for its checks)', () => {
  it('builds parameters over a buffer and checks the offsets', () => {
    const buffer = new ArrayBuffer(16);
    expect(driver.createKernelParams(buffer, [0, 8], [8, 8])).toBeTypeOf('object');
    expect(() => driver.createKernelParams(buffer, [0, 16], [8, 1])).toThrow(
      /offsets'\[1\] = 16 is past the end of the buffer \(16 bytes\)/,
    );
    expect(() => driver.createKernelParams({} as never, [], [])).toThrow(TypeError);
  });
  it('refuses a kernelParams that is not from createKernelParams', () => {
    expect(() => driver.cuLaunchKernel(1n as never, 1, 1, 1, 1, 1, 1, 0, 0n, {} as never)).toThrow(
      /kernelParams' must be the result of createKernelParams/,
    );
    expect(() => driver.cuLaunchKernel(1n as never, -1, 1, 1, 1, 1, 1, 0, 0n, null)).toThrow(/gridDimX/);
    expect(() => driver.cuLaunchKernel(1 as never, 1, 1, 1, 1, 1, 1, 0, 0n, null)).toThrow(
      /parameter 'f' must be a bigint/,
    );
  });
});

describe.skipIf(!hasDriver)('the driver library of this machine', () => {
  it('reports its version', () => {
    const version = driver.cuDriverGetVersion();
    expect(Number.isInteger(version)).toBe(true);
    expect(version).toBeGreaterThanOrEqual(11000);
  });
  it('names result codes through cuGetErrorName', () => {
    expect(driver.cuGetErrorName(100)).toBe('CUDA_ERROR_NO_DEVICE');
    expect(driver.cuGetErrorString(100)).toMatch(/device/i);
  });
  it('cuInit throws CudaError CUDA_ERROR_NO_DEVICE where there is no GPU', () => {
    let error: unknown;
    try {
      driver.cuInit(0);
    } catch (e) {
      error = e;
    }
    if (error === undefined) return; // a GPU host: cuInit succeeds, and the gpu project tests the rest
    expect(error).toBeInstanceOf(CudaError);
    const e = error as CudaError;
    expect(e.codeName).toBe('CUDA_ERROR_NO_DEVICE');
    expect(e.code).toBe(100);
    expect(e.functionName).toBe('cuInit');
    expect(e.libraryMessage).toMatch(/no CUDA-capable device/);
    // without a device every later call reports that the driver is not initialized, as a CudaError too
    expect(() => driver.cuDeviceGetCount()).toThrow(CudaError);
  });
});
