import { describe, expect, it } from 'vitest';
import { runDemo } from './demo-command.js';
import { runInfo } from './info-command.js';

// `cuda-js info` and `cuda-js demo` where the driver library cannot be found:
// each prints the whole error, every place tried (not cut at its first line).
// The override names a file that does not exist (so it holds on GPU hosts
// too); it is set before the first driver call (each test file has its own process).
process.env['CUDA_JS_LIB_CUDA'] = '/nonexistent/cuda-js-test/libcuda.so.1';
const PLACE = /^ +1\. \[override\] CUDA_JS_LIB_CUDA=\/nonexistent\/cuda-js-test\/libcuda\.so\.1: /;

function capture(run: (write: (text: string) => void) => number): string[] {
  let text = '';
  run((t) => (text += t));
  return text.split('\n');
}

describe('without the driver library', () => {
  it('cuda-js info says the driver is unavailable, and prints the whole error after the table', () => {
    const lines = capture((write) => runInfo({ columns: 1000 }, write));
    expect(lines[0]).toMatch(/; run: no driver, use CUDA_JS_SIMULATOR=1$/);
    expect(lines[2]).toBe('CUDA driver: unavailable (see below)');
    const header = lines.findIndex((l) => l.startsWith('cuda-js: CUDA libraries on this machine'));
    const whole = lines.indexOf("driver: LibraryNotFoundError: CUDA library 'cuda' was not found.");
    expect(whole).toBeGreaterThan(header);
    expect(lines[whole + 1]).toBe('Places tried, in order:');
    expect(lines[whole + 2]).toMatch(PLACE);
  });

  it('cuda-js demo runs in the simulator and says why, with the whole error', () => {
    const lines = capture(runDemo);
    expect(lines[0]).toBe('cuda-js demo: JIT kernels in the CPU simulator, as there is no GPU:');
    expect(lines[1]).toBe("  CUDA library 'cuda' was not found.");
    expect(lines[2]).toBe('  Places tried, in order:');
    expect(lines[3]).toMatch(PLACE);
    expect(lines.filter((l) => l.endsWith('matches plain JS'))).toHaveLength(2);
  });
});
