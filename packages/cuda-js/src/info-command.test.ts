import { describe, expect, it } from 'vitest';
import { SUPPORTED_HEADERS, SUPPORTED_LIBRARIES } from '@cuda-js/pathfinder';
import { boxTable, headline, peerAccessLines, readiness, runInfo, wrapText } from './info-command.js';
import { STACK_HEADERS, STACK_LIBRARIES } from './library-report.js';

function capture(options: Parameters<typeof runInfo>[0]): string {
  let text = '';
  expect(runInfo(options, (t) => (text += t))).toBe(0);
  return text;
}

describe('cuda-js info', () => {
  it('reports every catalog entry with --all, found or missing, as JSON', () => {
    const rows = (
      JSON.parse(capture({ json: true, all: true })) as {
        libraries: { kind: string; name: string; found: boolean; path?: string; foundVia?: string }[];
      }
    ).libraries;
    expect(rows.filter((r) => r.kind === 'library').map((r) => r.name)).toEqual([...SUPPORTED_LIBRARIES]);
    expect(rows.filter((r) => r.kind === 'headers').map((r) => r.name)).toEqual([...SUPPORTED_HEADERS]);
    for (const row of rows) expect(row.found ? typeof row.path : row.foundVia).toBe(row.found ? 'string' : undefined);
  });

  it('lists only what the stack uses by default (the driver, NVRTC, nvJitLink, libNVVM, NVML, NCCL, the runtime headers and CCCL, libdevice)', () => {
    const rows = (JSON.parse(capture({ json: true })) as { libraries: { kind: string; name: string }[] }).libraries;
    expect(rows.filter((r) => r.kind === 'library').map((r) => r.name)).toEqual([...STACK_LIBRARIES]);
    expect(rows.filter((r) => r.kind === 'headers').map((r) => r.name)).toEqual([...STACK_HEADERS]);
    expect(rows.filter((r) => r.kind === 'libdevice')).toHaveLength(1);
    for (const name of STACK_LIBRARIES) expect(SUPPORTED_LIBRARIES).toContain(name);
    const text = capture({ columns: 200 });
    expect(text).not.toMatch(/\bcufft\b|\bcusolver\b|\bcublas\b/);
    expect(text).toContain('(those cuda-js uses; --all: every one)');
  });

  it('fits the text in the terminal width, wrapping paths and notes', () => {
    for (const columns of [80, 60]) {
      for (const all of [false, true]) {
        const lines = capture({ columns, all, verbose: true }).split('\n');
        expect(lines.filter((l) => l.length > columns)).toEqual([]);
      }
    }
  });

  it('says first, in one line, what works here: the JIT compile and a run (or the simulator)', () => {
    const report = JSON.parse(capture({ json: true })) as {
      ready: { jitCompile: boolean; run: boolean };
      devices: unknown[];
    };
    const first = capture({ columns: 80 }).split('\n')[0]!;
    expect(first).toMatch(
      /^JIT compile: (yes \(libNVVM[^)]*\)|no \((libNVVM|libdevice) not found\)); run: (yes \(\d+ devices?\)|no (driver|device), use CUDA_JS_SIMULATOR=1)$/,
    );
    expect(first.startsWith(`JIT compile: ${report.ready.jitCompile ? 'yes' : 'no'}`)).toBe(true);
    expect(first).toContain(`run: ${report.ready.run ? 'yes' : 'no'}`);
    expect(report.ready.run).toBe(report.devices.length > 0);
    expect(first.length).toBeLessThanOrEqual(80);
  });

  it('prints a table and names what is missing; --verbose lists where it looked', () => {
    const text = capture({ verbose: true, all: true, columns: 1000 });
    expect(text).toContain('cuda-js: CUDA libraries on this machine');
    for (const name of SUPPORTED_LIBRARIES) expect(text).toContain(name);
    const rows = (
      JSON.parse(capture({ json: true, all: true })) as { libraries: { kind: string; name: string; found: boolean }[] }
    ).libraries;
    const missing = rows.filter((r) => !r.found);
    if (missing.length) {
      expect(text).toContain(
        `missing: ${missing.map((r) => (r.kind === 'library' ? r.name : `${r.kind} ${r.name}`)).join(', ')}`,
      );
      expect(text).toContain('was not found.\nPlaces tried, in order:\n');
    } else {
      expect(text).toContain('everything in the catalog was found');
    }
  });
});

describe('cuda-js info: the driver and the devices', () => {
  it('prints the driver version and each device, or says why not', () => {
    const report = JSON.parse(capture({ json: true })) as {
      driverVersion?: string;
      devices: { name: string; arch: string }[];
      problems: string[];
    };
    const text = capture({ columns: 1000 });
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
    ).toEqual([
      "peer access (cuDeviceCanAccessPeer: can the row device address the column device's memory?):",
      '       0   1   2',
      '   0   - yes  no',
      '   1 yes   -  no',
      '   2  no  no   -',
    ]);
  });
});

describe('cuda-js info: NVML', () => {
  it("prints NVML's driver and GPUs, or one line that says why NVML could not be asked", () => {
    const report = JSON.parse(capture({ json: true })) as {
      nvml: { available: boolean; reason?: string; driverVersion?: string; devices?: { name: string }[] };
    };
    const text = capture({ columns: 1000 });
    if (report.nvml.available) {
      expect(text).toContain(`NVIDIA driver: ${report.nvml.driverVersion} (NVML `);
      for (const d of report.nvml.devices!) expect(text).toContain(`: ${d.name} (`);
    } else {
      expect(report.nvml.reason).toBeTypeOf('string');
      expect(text).toContain(
        `NVML: unavailable (no GPU figures from the NVIDIA Management Library): ${headline(report.nvml.reason!)} (see below)`,
      );
    }
  });
});

describe('cuda-js info: the readiness line, the wrapping and the table', () => {
  const row = (kind: 'library' | 'libdevice', name: string, found: boolean, version?: string) => ({
    kind,
    name,
    found,
    notes: [],
    ...(version ? { version } : {}),
  });
  it('says what works from the rows and the devices', () => {
    const found = [
      row('library', 'nvvm', true, '13.0'),
      row('libdevice', 'libdevice', true),
      row('library', 'nvrtc', true, '13'),
    ];
    expect(readiness(found, { driverVersion: '13.0', devices: [] })).toMatchObject({
      jitCompile: true,
      cxxCompile: true,
      run: false,
      summary: 'JIT compile: yes (libNVVM 13.0); run: no device, use CUDA_JS_SIMULATOR=1',
      cxxSummary: 'C++ compile (NVRTC): yes (CUDA 13)',
    });
    expect(readiness([row('library', 'nvvm', false)], { devices: [] }).summary).toBe(
      'JIT compile: no (libNVVM not found); run: no driver, use CUDA_JS_SIMULATOR=1',
    );
    expect(
      readiness([row('library', 'nvvm', true)], { driverVersion: '13.0', devices: [{}, {}] as never }).summary,
    ).toBe('JIT compile: no (libdevice not found); run: yes (2 devices)');
  });

  it('wraps at spaces, a long path after a slash, and indents what follows', () => {
    expect(wrapText('one two three four', 9, '  ')).toEqual(['one two', '  three', '  four']);
    expect(wrapText('/usr/local/cuda-13.0/lib/libnvvm.so.4', 16)).toEqual([
      '/usr/local/',
      'cuda-13.0/lib/',
      'libnvvm.so.4',
    ]);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('kept\n  1. indented', 80)).toEqual(['kept', '  1. indented']);
  });

  it('draws a box table as cli-table3 did', () => {
    expect(
      boxTable(
        [
          ['a', 'bc'],
          ['d\ne', ''],
        ],
        [3, 4],
      ),
    ).toBe(['┌───┬────┐', '│ a │ bc │', '├───┼────┤', '│ d │    │', '│ e │    │', '└───┴────┘'].join('\n'));
  });
});
