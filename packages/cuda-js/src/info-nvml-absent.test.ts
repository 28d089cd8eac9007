import { describe, expect, it } from 'vitest';
import { runInfo } from './info-command.js';

// `cuda-js info` where libnvidia-ml cannot be found: a clear line, exit code 0,
// no throw. The override names a file that does not exist (so it holds on GPU
// hosts too); it is set before the first NVML call (each test file has its own process).
process.env['CUDA_JS_LIB_NVML'] = '/nonexistent/cuda-js-test/libnvidia-ml.so.1';

function capture(options: Parameters<typeof runInfo>[0]): string {
  let text = '';
  expect(runInfo(options, (t) => (text += t))).toBe(0);
  return text;
}

describe('cuda-js info without NVML', () => {
  it('prints one short line that names the library, and after the table the whole error: every place it looked, one a line', () => {
    const text = capture({ columns: 1000 });
    const lines = text.split('\n');
    const line = lines.find((l) => l.startsWith('NVML: unavailable'));
    expect(line).toBe(
      "NVML: unavailable (no GPU figures from the NVIDIA Management Library): LibraryNotFoundError: CUDA library 'nvml' was not found (see below)",
    );
    const header = lines.findIndex((l) => l.startsWith('cuda-js: CUDA libraries on this machine'));
    expect(header).toBeGreaterThan(lines.indexOf(line!));
    const whole = lines.indexOf("nvml: LibraryNotFoundError: CUDA library 'nvml' was not found.");
    expect(whole).toBeGreaterThan(header);
    expect(lines[whole + 1]).toBe('Places tried, in order:');
    expect(lines[whole + 2]).toMatch(
      /^ {2}1\. \[override\] CUDA_JS_LIB_NVML=\/nonexistent\/cuda-js-test\/libnvidia-ml\.so\.1: /,
    );
  });

  it('reports it as JSON with the reason', () => {
    const report = JSON.parse(capture({ json: true })) as { nvml: { available: boolean; reason: string } };
    expect(report.nvml.available).toBe(false);
    expect(report.nvml.reason).toMatch(/^LibraryNotFoundError: CUDA library 'nvml' was not found/);
  });
});
