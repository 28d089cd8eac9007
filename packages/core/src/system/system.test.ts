import { nvml, NvmlError, type nvmlDevice_t } from '@cuda-js/bindings';
import { FAKE_NVML, fakeNvml } from '@cuda-js/test-support/fake-nvml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeviceNotFoundError, system, SystemDevice } from '../index.js';

// `system` over a stand-in libnvidia-ml.so.1 (tooling/test-support/fake-nvml.c),
// so that it runs without an NVIDIA driver; the GPU test (system.gpu.test.ts)
// compares the real thing with nvidia-smi. Each test file has its own process:
// the override is set before the first NVML call.
const fake = fakeNvml();
if ('path' in fake) process.env['CUDA_JS_LIB_NVML'] = fake.path;
const skipReason = 'reason' in fake ? fake.reason : undefined;
if (skipReason) console.log(`system.test.ts: skipped: ${skipReason}`);

const [h200, a100] = FAKE_NVML.devices;

describe.skipIf(skipReason !== undefined)('system over NVML', () => {
  it('is available, with the driver, NVML and CUDA versions', () => {
    expect(system.available).toBe(true);
    expect(system.unavailableReason).toBeUndefined();
    expect(system.unavailableError).toBeUndefined();
    expect(system.driverVersion).toBe('580.65.06');
    expect(system.nvmlVersion).toBe('13.580.65.06');
    expect(system.cudaDriverVersion).toEqual({ major: 13, minor: 0 });
    expect(system.deviceCount).toBe(2);
  });

  it('gives one info object per device, in NVML order, with every figure in its unit', () => {
    const devices = system.devices();
    expect(devices.map((d) => d.index)).toEqual([0, 1]);
    expect(devices[0]).toBe(system.device(0));
    const d = devices[0]!.info();
    expect(d).toEqual({
      index: 0,
      name: h200.name,
      uuid: h200.uuid,
      memory: {
        total: h200.total,
        free: h200.total - h200.reserved - h200.used,
        used: h200.used,
        reserved: h200.reserved,
      },
      utilization: h200.utilization,
      clocks: { ...h200.clocks, max: h200.maxClocks },
      temperature: h200.temperature,
      power: { usage: 123.456, limit: 700 },
      pci: {
        busId: h200.busId,
        busIdLegacy: h200.busIdLegacy,
        domain: 0,
        bus: 0x1d,
        device: 0,
        pciDeviceId: h200.pciDeviceId,
        pciSubSystemId: h200.pciSubSystemId,
      },
      computeCapability: { major: 9, minor: 0 },
      nvlink: {
        supported: true,
        links: 18,
        active: 6,
        version: '4.0',
        perLink: Array.from({ length: 18 }, (_, link) => ({ link, active: link < 6, version: '4.0', versionCode: 6 })),
      },
    });
  });

  it('a figure that the device does not report is undefined, not an error', () => {
    const d = system.device(1);
    expect(d.name).toBe(a100.name);
    expect(d.power).toEqual({ usage: undefined, limit: undefined });
    expect(d.nvlink).toEqual({ supported: false, links: 0, active: 0, version: undefined, perLink: [] });
    expect(d.temperature).toBe(a100.temperature);
    expect(d.pci.busId).toBe(a100.busId);
    expect(d.memory.total).toBe(a100.total);
    expect(d.computeCapability).toEqual({ major: 8, minor: 0 });
  });

  it('a bad index is a RangeError; one past the last device is DeviceNotFoundError', () => {
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '0' as never, 1n as never])
      expect(() => system.device(bad)).toThrow(RangeError);
    expect(() => system.device(2)).toThrow(DeviceNotFoundError);
    expect(() => system.device(2)).toThrow('no NVML device 2: NVML reports 2 device(s)');
    expect(() => SystemDevice.get(2 ** 40)).toThrow(DeviceNotFoundError);
  });
});

describe.skipIf(skipReason !== undefined)('hostile input at the NVML bindings boundary', () => {
  const d = () => nvml.nvmlDeviceGetHandleByIndex_v2(0);

  it('an index is an unsigned 32-bit integer: other numbers are RangeError, other types TypeError, an absent device NvmlError', () => {
    expect(system.available).toBe(true); // NVML initialized
    fc.assert(
      fc.property(fc.double({ noNaN: false }), (x) => {
        let error: unknown;
        try {
          nvml.nvmlDeviceGetHandleByIndex_v2(x);
        } catch (e) {
          error = e;
        }
        if (Number.isInteger(x) && x >= 0 && x <= 0xffffffff) {
          // within the C type: NVML answers (devices 0 and 1 exist)
          if (x < 2) expect(error).toBeUndefined();
          else expect(error).toMatchObject({ name: 'NvmlError', codeName: 'NVML_ERROR_INVALID_ARGUMENT' });
        } else {
          expect(error).toBeInstanceOf(RangeError);
          expect((error as Error).message).toMatch(/^nvmlDeviceGetHandleByIndex_v2: parameter 'index' /);
        }
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.bigInt(),
          fc.boolean(),
          fc.constant(null),
          fc.constant(undefined),
          fc.object(),
          fc.array(fc.integer()),
        ),
        (x) => {
          expect(() => nvml.nvmlDeviceGetHandleByIndex_v2(x as never)).toThrow(TypeError);
        },
      ),
    );
  });

  it('a link number at the 32-bit boundary, and enum values outside their C enum', () => {
    const h = d();
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 33), max: 2 ** 33 }), (link) => {
        let error: unknown;
        try {
          nvml.nvmlDeviceGetNvLinkState(h, link);
        } catch (e) {
          error = e;
        }
        if (link < 0 || link > 0xffffffff) expect(error).toBeInstanceOf(RangeError);
        else if (link >= 18) expect(error).toBeInstanceOf(NvmlError);
        else expect(error).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (type) => {
        let error: unknown;
        try {
          nvml.nvmlDeviceGetClockInfo(h, type);
        } catch (e) {
          error = e;
        }
        // NVML_CLOCK_COUNT (4) is a value of the C enum: the binding lets it through and NVML refuses it
        if (type >= 0 && type <= 3) expect(error).toBeUndefined();
        else if (type === 4) expect(error).toMatchObject({ codeName: 'NVML_ERROR_INVALID_ARGUMENT' });
        else expect(error).toBeInstanceOf(RangeError);
      }),
    );
  });

  it('anything but a device External, anywhere a device goes, is a TypeError naming the function and parameter', () => {
    const fns = [
      nvml.nvmlDeviceGetName,
      nvml.nvmlDeviceGetUUID,
      nvml.nvmlDeviceGetMemoryInfo,
      nvml.nvmlDeviceGetMemoryInfo_v2,
      nvml.nvmlDeviceGetUtilizationRates,
      nvml.nvmlDeviceGetPowerUsage,
      nvml.nvmlDeviceGetEnforcedPowerLimit,
      nvml.nvmlDeviceGetPciInfo_v3,
      nvml.nvmlDeviceGetCudaComputeCapability,
    ] as ((device: nvmlDevice_t) => unknown)[];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          fc.integer(),
          fc.string(),
          fc.constant(null),
          fc.object(),
          fc.constant(Object.create(d() as object) as object),
        ),
        fc.integer({ min: 0, max: fns.length - 1 }),
        (value, i) => {
          expect(() => fns[i]!(value as nvmlDevice_t)).toThrow(
            /^nvmlDevice\w+: parameter 'device' must be an nvmlDevice_t \(the External that nvmlDeviceGetHandleByIndex_v2 returns\), got /,
          );
        },
      ),
    );
    expect(nvml.nvmlDeviceGetName(d())).toBe(h200.name);
  });

  it('a versioned struct: any version but the one NVML knows is its own named error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (version) => {
        let error: unknown;
        try {
          nvml.nvmlDeviceGetMemoryInfo_v2(d(), { version });
        } catch (e) {
          error = e;
        }
        if (version === nvml.nvmlMemory_v2) expect(error).toBeUndefined();
        else expect(error).toMatchObject({ name: 'NvmlError', codeName: 'NVML_ERROR_ARGUMENT_VERSION_MISMATCH' });
      }),
    );
  });
});
