import { FAKE_NVML, fakeNvml } from '@cuda-js/test-support/fake-nvml';
import { describe, expect, it } from 'vitest';
import { driver, loadedLibraries, NvmlError, nvml, type nvmlDevice_t } from './index.js';
import { errorOf } from '@cuda-js/test-support/errors';

// NVML through the generated bindings, against a stand-in libnvidia-ml.so.1
// (tooling/test-support/fake-nvml.c, written to NVML's ABI by byte offset) so
// that this runs on machines without an NVIDIA driver. A library is opened once
// per process and each test file runs in its own, so the override is set here,
// before the first NVML call.
const fake = fakeNvml();
if ('path' in fake) process.env['CUDA_JS_LIB_NVML'] = fake.path;
const skipReason = 'reason' in fake ? fake.reason : undefined;
if (skipReason) console.log(`nvml.test.ts: skipped: ${skipReason}`);

/** What the failing call threw: an error of the bindings with its fields. */
type NvmlFailure = {
  name?: string;
  codeName?: string;
  code?: number;
  functionName?: string;
  libraryMessage?: string;
  message: string;
};

describe.skipIf(skipReason !== undefined)('nvml against a stand-in libnvidia-ml', () => {
  it('is a namespace of the C names, the unversioned aliases, the enums and the #define constants', () => {
    expect(typeof nvml.nvmlInit_v2).toBe('function');
    for (const alias of [
      'nvmlInit',
      'nvmlDeviceGetCount',
      'nvmlDeviceGetHandleByIndex',
      'nvmlDeviceGetPciInfo',
    ] as const)
      expect(typeof nvml[alias]).toBe('function');
    expect(nvml.nvmlReturn_t.NVML_ERROR_UNINITIALIZED).toBe(1);
    expect(nvml.nvmlReturn_t[999]).toBe('NVML_ERROR_UNKNOWN');
    expect(nvml.nvmlClockType_t.NVML_CLOCK_MEM).toBe(2);
    expect(nvml.nvmlNvlinkVersion_t.NVML_NVLINK_VERSION_4_0).toBe(6);
    expect(nvml.NVML_DEVICE_NAME_V2_BUFFER_SIZE).toBe(96);
    expect(nvml.NVML_DEVICE_UUID_V2_BUFFER_SIZE).toBe(96);
    expect(nvml.NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE).toBe(80);
    expect(nvml.NVML_NVLINK_MAX_LINKS).toBe(18);
    expect(nvml.nvmlMemory_v2).toBe(40 | (2 << 24));
    expect(Object.isFrozen(nvml)).toBe(true);
  });

  it('a call before nvmlInit_v2 is NvmlError NVML_ERROR_UNINITIALIZED with the library message', () => {
    const e = errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetCount_v2());
    expect(e).toBeInstanceOf(NvmlError);
    expect(e).toMatchObject({
      name: 'NvmlError',
      code: 1,
      codeName: 'NVML_ERROR_UNINITIALIZED',
      functionName: 'nvmlDeviceGetCount_v2',
      libraryMessage: 'Uninitialized',
    });
    expect(e.message).toBe('nvmlDeviceGetCount_v2 failed with NVML_ERROR_UNINITIALIZED (1): Uninitialized');
    expect(loadedLibraries().find((l) => l.name === 'nvml')).toMatchObject({
      path: process.env['CUDA_JS_LIB_NVML'],
      foundVia: 'override',
    });
  });

  it('reads the system and every device, with the struct layouts of the NVML ABI', () => {
    nvml.nvmlInit_v2();
    expect(nvml.nvmlSystemGetDriverVersion()).toBe(FAKE_NVML.driverVersion);
    expect(nvml.nvmlSystemGetNVMLVersion()).toBe(FAKE_NVML.nvmlVersion);
    expect(nvml.nvmlSystemGetCudaDriverVersion_v2()).toBe(FAKE_NVML.cudaDriverVersion);
    expect(nvml.nvmlDeviceGetCount_v2()).toBe(2);
    // the unversioned names call the same C functions
    expect(nvml.nvmlDeviceGetCount()).toBe(2);
    expect(nvml.nvmlDeviceGetPciInfo(nvml.nvmlDeviceGetHandleByIndex(1))).toEqual(
      nvml.nvmlDeviceGetPciInfo_v3(nvml.nvmlDeviceGetHandleByIndex_v2(1)),
    );
    FAKE_NVML.devices.forEach((want, i) => {
      const d = nvml.nvmlDeviceGetHandleByIndex_v2(i);
      expect(typeof d).toBe('object');
      expect(nvml.nvmlDeviceGetName(d)).toBe(want.name);
      expect(nvml.nvmlDeviceGetUUID(d)).toBe(want.uuid);
      expect(nvml.nvmlDeviceGetPciInfo_v3(d)).toEqual({
        busIdLegacy: want.busIdLegacy,
        domain: want.domain,
        bus: want.bus,
        device: want.device,
        pciDeviceId: want.pciDeviceId,
        pciSubSystemId: want.pciSubSystemId,
        busId: want.busId,
      });
      const free = want.total - want.reserved - want.used;
      expect(nvml.nvmlDeviceGetMemoryInfo(d)).toEqual({ total: want.total, free, used: want.reserved + want.used });
      expect(nvml.nvmlDeviceGetMemoryInfo_v2(d)).toEqual({
        version: nvml.nvmlMemory_v2,
        total: want.total,
        reserved: want.reserved,
        free,
        used: want.used,
      });
      expect(nvml.nvmlDeviceGetUtilizationRates(d)).toEqual(want.utilization);
      expect(nvml.nvmlDeviceGetClockInfo(d, nvml.nvmlClockType_t.NVML_CLOCK_GRAPHICS)).toBe(want.clocks.graphics);
      expect(nvml.nvmlDeviceGetClockInfo(d, nvml.nvmlClockType_t.NVML_CLOCK_MEM)).toBe(want.clocks.memory);
      expect(nvml.nvmlDeviceGetMaxClockInfo(d, nvml.nvmlClockType_t.NVML_CLOCK_SM)).toBe(want.maxClocks.sm);
      expect(nvml.nvmlDeviceGetTemperature(d, nvml.nvmlTemperatureSensors_t.NVML_TEMPERATURE_GPU)).toBe(
        want.temperature,
      );
      expect(nvml.nvmlDeviceGetCudaComputeCapability(d)).toEqual(want.computeCapability);
    });
  });

  it('NVML failures are NvmlError with the nvmlReturn_t name, never a crash', () => {
    const d0 = nvml.nvmlDeviceGetHandleByIndex_v2(0);
    const d1 = nvml.nvmlDeviceGetHandleByIndex_v2(1);
    expect(nvml.nvmlDeviceGetPowerUsage(d0)).toBe(FAKE_NVML.devices[0].powerMilliwatts);
    expect(nvml.nvmlDeviceGetEnforcedPowerLimit(d0)).toBe(FAKE_NVML.devices[0].limitMilliwatts);
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetPowerUsage(d1))).toMatchObject({
      name: 'NvmlError',
      codeName: 'NVML_ERROR_NOT_SUPPORTED',
      functionName: 'nvmlDeviceGetPowerUsage',
    });
    expect(nvml.nvmlDeviceGetNvLinkState(d0, 0)).toBe(nvml.nvmlEnableState_t.NVML_FEATURE_ENABLED);
    expect(nvml.nvmlDeviceGetNvLinkState(d0, 17)).toBe(nvml.nvmlEnableState_t.NVML_FEATURE_DISABLED);
    expect(nvml.nvmlDeviceGetNvLinkVersion(d0, 0)).toBe(nvml.nvmlNvlinkVersion_t.NVML_NVLINK_VERSION_4_0);
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetNvLinkState(d0, 18))).toMatchObject({
      codeName: 'NVML_ERROR_INVALID_ARGUMENT',
    });
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetNvLinkState(d1, 0))).toMatchObject({
      codeName: 'NVML_ERROR_NOT_SUPPORTED',
    });
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetHandleByIndex_v2(2))).toMatchObject({
      codeName: 'NVML_ERROR_INVALID_ARGUMENT',
      functionName: 'nvmlDeviceGetHandleByIndex_v2',
    });
    // a versioned struct: the version the bindings fill in is the one NVML knows; another is NVML's own error
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetMemoryInfo_v2(d0, { version: 1 }))).toMatchObject({
      codeName: 'NVML_ERROR_ARGUMENT_VERSION_MISMATCH',
    });
    expect(nvml.nvmlErrorString(nvml.nvmlReturn_t.NVML_ERROR_DRIVER_NOT_LOADED)).toBe('Driver Not Loaded');
  });

  it('a device handle is a type-tagged External: anything else is a TypeError naming the function and parameter', () => {
    const d = nvml.nvmlDeviceGetHandleByIndex_v2(0);
    const another = driver.createKernelParams(new ArrayBuffer(8), [0], [8]); // an External of another kind
    const bad: [unknown, RegExp][] = [
      [0n, /got the bigint 0n/],
      [0x1234n, /got the bigint 4660n/],
      [null, /got null/],
      [undefined, /got undefined/],
      [{}, /got an object/],
      [{ ...(d as object) }, /got an object/],
      [4660, /got the number 4660/],
      ['GPU-0', /got a string/],
      [another, /got an External of another kind/],
    ];
    for (const [value, got] of bad) {
      for (const call of [
        () => nvml.nvmlDeviceGetName(value as nvmlDevice_t),
        () => nvml.nvmlDeviceGetPciInfo_v3(value as nvmlDevice_t),
        () => nvml.nvmlDeviceGetNvLinkState(value as nvmlDevice_t, 0),
      ]) {
        const e = errorOf<NvmlFailure>(call);
        expect(e).toBeInstanceOf(TypeError);
        expect(e.message).toMatch(
          /^nvmlDevice\w+: parameter 'device' must be an nvmlDevice_t \(the External that nvmlDeviceGetHandleByIndex_v2 returns\), got /,
        );
        expect(e.message).toMatch(got);
      }
    }
    // and the driver refuses an NVML handle where it wants its own kind of External
    expect(() => driver.cuLaunchKernel(0n as never, 1, 1, 1, 1, 1, 1, 0, 0n, d as never)).toThrow(/kernelParams/);
    expect(nvml.nvmlDeviceGetName(d)).toBe(FAKE_NVML.devices[0].name);
  });

  it('other bad input is a TypeError or RangeError before NVML is called', () => {
    const d = nvml.nvmlDeviceGetHandleByIndex_v2(0);
    expect(() => nvml.nvmlDeviceGetHandleByIndex_v2(-1)).toThrow(
      /parameter 'index' must fit a 32-bit unsigned integer, got the number -1/,
    );
    expect(() => nvml.nvmlDeviceGetHandleByIndex_v2(2 ** 32)).toThrow(RangeError);
    expect(() => nvml.nvmlDeviceGetHandleByIndex_v2(0.5)).toThrow(/must be an integer/);
    expect(() => nvml.nvmlDeviceGetHandleByIndex_v2(0n as never)).toThrow(TypeError);
    expect(() => (nvml.nvmlDeviceGetHandleByIndex_v2 as (...a: unknown[]) => unknown)()).toThrow(
      /nvmlDeviceGetHandleByIndex_v2: expected 1 argument, got 0/,
    );
    expect(() => nvml.nvmlDeviceGetClockInfo(d, 7)).toThrow(
      /parameter 'type' must be a value of its C enum, got the number 7/,
    );
    expect(() => nvml.nvmlDeviceGetTemperature(d, -1)).toThrow(RangeError);
    expect(() => nvml.nvmlDeviceGetNvLinkState(d, Number.NaN)).toThrow(RangeError);
    expect(() => nvml.nvmlErrorString('NVML_SUCCESS' as never)).toThrow(/parameter 'result' must be a number/);
    expect(() => nvml.nvmlDeviceGetMemoryInfo_v2(d, { version: -1 })).toThrow(
      /memory.*version.*must fit a 32-bit unsigned integer/,
    );
    expect(() => nvml.nvmlDeviceGetMemoryInfo_v2(d, 'v2' as never)).toThrow(TypeError);
    expect(() => (nvml.nvmlSystemGetDriverVersion as (...a: unknown[]) => unknown)('extra')).toThrow(
      /expected 0 arguments, got 1/,
    );
  });

  it('nvmlShutdown balances nvmlInit_v2; calls after the last one are NVML_ERROR_UNINITIALIZED again', () => {
    const d = nvml.nvmlDeviceGetHandleByIndex_v2(0);
    nvml.nvmlShutdown();
    expect(errorOf<NvmlFailure>(() => nvml.nvmlDeviceGetName(d))).toMatchObject({
      codeName: 'NVML_ERROR_UNINITIALIZED',
    });
    nvml.nvmlInit();
    expect(nvml.nvmlDeviceGetName(d)).toBe(FAKE_NVML.devices[0].name);
  });
});
