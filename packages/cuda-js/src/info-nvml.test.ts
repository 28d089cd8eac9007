import { FAKE_NVML, fakeNvml } from '@cuda-js/test-support/fake-nvml';
import { describe, expect, it } from 'vitest';
import { headline, nvmlLines, runInfo } from './info-command.js';
import type { NvmlReport } from './system-report.js';

// `cuda-js info` over a stand-in libnvidia-ml.so.1 (tooling/test-support/fake-nvml.c):
// what it prints for GPUs that NVML reports. The override is set before the
// first NVML call (each test file has its own process).
const fake = fakeNvml();
if ('path' in fake) process.env['CUDA_JS_LIB_NVML'] = fake.path;
const skipReason = 'reason' in fake ? fake.reason : undefined;
if (skipReason) console.log(`info-nvml.test.ts: skipped: ${skipReason}`);

function capture(options: Parameters<typeof runInfo>[0]): string {
  let text = '';
  expect(runInfo(options, (t) => (text += t))).toBe(0);
  return text;
}

describe.skipIf(skipReason !== undefined)('cuda-js info with NVML', () => {
  it('prints the driver and one line per GPU', () => {
    const text = capture({ columns: 1000 });
    expect(text).toContain('NVIDIA driver: 580.65.06 (NVML 13.580.65.06, CUDA 13.0), 2 GPU(s)\n');
    expect(text).toContain(
      `gpu 0: Fake NVIDIA H200 (${FAKE_NVML.devices[0].uuid}, compute 9.0, 3.0 GiB of 140.4 GiB used, 37% busy, 41 °C, 123 W of 700 W, SM 1980/1980 MHz, PCI 00000000:1D:00.0, NVLink 4.0: 6 of 18 links active)\n`,
    );
    expect(text).toContain(
      `gpu 1: Fake NVIDIA A100 (${FAKE_NVML.devices[1].uuid}, compute 8.0, 0.0 GiB of 40.0 GiB used, 0% busy, 33 °C, SM 210/1410 MHz, PCI 00000001:B2:1F.0, no NVLink)\n`,
    );
    expect(text).not.toContain('NVML: unavailable');
  });

  it('gives the same as JSON, in plain JSON values', () => {
    const { nvml } = JSON.parse(capture({ json: true })) as { nvml: NvmlReport };
    expect(nvml).toMatchObject({
      available: true,
      driverVersion: '580.65.06',
      nvmlVersion: '13.580.65.06',
      cudaDriverVersion: '13.0',
    });
    if (!nvml.available) throw new Error('unreachable');
    expect(nvml.devices[0]).toEqual({
      index: 0,
      name: 'Fake NVIDIA H200',
      uuid: FAKE_NVML.devices[0].uuid,
      memory: {
        totalBytes: 150754820096,
        freeBytes: 150754820096 - 512 * 2 ** 20 - 3 * 2 ** 30,
        usedBytes: 3 * 2 ** 30,
      },
      utilization: { gpu: 37, memory: 12 },
      clocksMHz: { graphics: 1980, sm: 1980, memory: 3201, maxSm: 1980, maxMemory: 3201 },
      temperatureC: 41,
      power: { usageW: 123.456, limitW: 700 },
      pciBusId: '00000000:1D:00.0',
      computeCapability: '9.0',
      nvlink: { links: 18, active: 6, version: '4.0' },
    });
    expect(nvml.devices[1]).toMatchObject({
      power: { usageW: null, limitW: null },
      nvlink: { links: 0, active: 0, version: null },
    });
  });
});

describe('the NVML lines', () => {
  it('say why, in one short line (the first sentence of the reason), where NVML is unavailable', () => {
    expect(nvmlLines({ available: false, reason: 'LibraryNotFoundError: nowhere' })).toEqual([
      'NVML: unavailable (no GPU figures from the NVIDIA Management Library): LibraryNotFoundError: nowhere (see below)',
    ]);
    const reason =
      "LibraryNotFoundError: CUDA library 'nvml' was not found. Places tried, in order: 1. [override] CUDA_JS_LIB_NVML: not set; 2. [system] /lib64: none here";
    expect(nvmlLines({ available: false, reason })).toEqual([
      "NVML: unavailable (no GPU figures from the NVIDIA Management Library): LibraryNotFoundError: CUDA library 'nvml' was not found (see below)",
    ]);
    expect(headline('v1.2 failed. Then more.')).toBe('v1.2 failed');
  });
});
