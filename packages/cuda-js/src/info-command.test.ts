import { describe, expect, it } from 'vitest';
import { SUPPORTED_HEADERS, SUPPORTED_LIBRARIES } from '@cuda-js/pathfinder';
import { headline, peerAccessLines, runInfo } from './info-command.js';

function capture(options: Parameters<typeof runInfo>[0]): string {
  let text = '';
  expect(runInfo(options, (t) => (text += t))).toBe(0);
  return text;
}

describe('cuda-js info', () => {
  it('reports every catalog entry, found or missing, as JSON', () => {
    const rows = (JSON.parse(capture({ json: true })) as { libraries: { kind: string; name: string; found: boolean; path?: string; foundVia?: string }[] }).libraries;
    expect(rows.filter((r) => r.kind === 'library').map((r) => r.name)).toEqual([...SUPPORTED_LIBRARIES]);
    expect(rows.filter((r) => r.kind === 'headers').map((r) => r.name)).toEqual([...SUPPORTED_HEADERS]);
    for (const row of rows) expect(row.found ? typeof row.path : row.foundVia).toBe(row.found ? 'string' : undefined);
  });

  it('prints a table and names what is missing; --verbose lists where it looked', () => {
    const text = capture({ verbose: true });
    expect(text).toContain('cuda-js: CUDA libraries on this machine');
    for (const name of SUPPORTED_LIBRARIES) expect(text).toContain(name);
    const rows = (JSON.parse(capture({ json: true })) as { libraries: { kind: string; name: string; found: boolean }[] }).libraries;
    const missing = rows.filter((r) => !r.found);
    if (missing.length) {
      expect(text).toContain(`missing: ${missing.map((r) => (r.kind === 'library' ? r.name : `${r.kind} ${r.name}`)).join(', ')}`);
      expect(text).toContain('was not found.\nPlaces tried, in order:\n');
    } else {
      expect(text).toContain('everything in the catalog was found');
    }
  });
});

describe('cuda-js info: the driver and the devices', () => {
  it('prints the driver version and each device, or says why not', () => {
    const report = JSON.parse(capture({ json: true })) as { driverVersion?: string; devices: { name: string; arch: string }[]; problems: string[] };
    const text = capture({});
    expect(text).toContain(`CUDA driver: ${report.driverVersion ?? 'unavailable'}`);
    if (report.driverVersion) expect(report.driverVersion).toMatch(/^\d+\.\d+$/);
    for (const d of report.devices) expect(text).toContain(`${d.name} (${d.arch}`);
    if (report.devices.length === 0) expect(report.problems.length).toBeGreaterThan(0);
    for (const p of report.problems) expect(text).toContain(p);
  });
});

describe('cuda-js info: peer access', () => {
  it('reports the peer-access matrix of the devices, true on the diagonal', () => {
    const report = JSON.parse(capture({ json: true })) as { devices: unknown[]; peerAccess: boolean[][] };
    expect(report.peerAccess).toHaveLength(report.devices.length);
    report.peerAccess.forEach((row, i) => {
      expect(row).toHaveLength(report.devices.length);
      expect(row[i]).toBe(true);
    });
    const text = capture({});
    if (report.devices.length === 1) expect(text).toContain('peer access: one device, no peers');
    if (report.devices.length > 1) expect(text).toContain('peer access (cuDeviceCanAccessPeer');
  });

  it('prints a matrix, row device by column device', () => {
    expect(peerAccessLines([])).toEqual([]);
    expect(peerAccessLines([[true]])).toEqual(['peer access: one device, no peers']);
    expect(
      peerAccessLines([
        [true, true, false],
        [true, true, false],
        [false, false, true],
      ]),
    ).toEqual(["peer access (cuDeviceCanAccessPeer: can the row device address the column device's memory?):", '       0   1   2', '   0   - yes  no', '   1 yes   -  no', '   2  no  no   -']);
  });
});

describe('cuda-js info: NVML', () => {
  it("prints NVML's driver and GPUs, or one line that says why NVML could not be asked", () => {
    const report = JSON.parse(capture({ json: true })) as { nvml: { available: boolean; reason?: string; driverVersion?: string; devices?: { name: string }[] } };
    const text = capture({});
    if (report.nvml.available) {
      expect(text).toContain(`NVIDIA driver: ${report.nvml.driverVersion} (NVML `);
      for (const d of report.nvml.devices!) expect(text).toContain(`: ${d.name} (`);
    } else {
      expect(report.nvml.reason).toBeTypeOf('string');
      expect(text).toContain(`NVML: unavailable (no GPU figures from the NVIDIA Management Library): ${headline(report.nvml.reason!)} (see below)`);
    }
  });
});
