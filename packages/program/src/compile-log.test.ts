import { describe, expect, it } from 'vitest';
import { parseDiagnostics, writeLog } from './compile-log.js';

describe('parseDiagnostics', () => {
  it('reads NVRTC messages with file and line, skipping excerpts and summaries', () => {
    const log = [
      'kernel.cu(3): error: identifier "undefined_thing" is undefined',
      '      y[i] = undefined_thing;',
      '             ^',
      '',
      'kernel.cu(7): warning #177-D: variable "unused" was declared but never referenced',
      '1 error detected in the compilation of "kernel.cu".',
    ].join('\n');
    expect(parseDiagnostics(log)).toEqual([
      {
        file: 'kernel.cu',
        line: 3,
        column: undefined,
        severity: 'error',
        message: 'identifier "undefined_thing" is undefined',
      },
      {
        file: 'kernel.cu',
        line: 7,
        column: undefined,
        severity: 'warning',
        message: 'variable "unused" was declared but never referenced',
      },
    ]);
  });

  it("reads libNVVM's parser messages with line and column", () => {
    expect(parseDiagnostics('program.ll (4, 17): parse expected type\n')).toEqual([
      { file: 'program.ll', line: 4, column: 17, severity: 'error', message: 'parse expected type' },
    ]);
  });

  it('reads LLVM-style messages with a column', () => {
    expect(parseDiagnostics("program.ll:12:7: error: use of undefined value '%x'\r\n")).toEqual([
      { file: 'program.ll', line: 12, column: 7, severity: 'error', message: "use of undefined value '%x'" },
    ]);
  });
});

describe('writeLog', () => {
  it('writes to a function or a writable, and skips empty logs', () => {
    const got: string[] = [];
    writeLog((t) => got.push(`fn:${t}`), 'a');
    writeLog({ write: (t: string) => got.push(`w:${t}`) }, 'b');
    writeLog((t) => got.push(t), '');
    writeLog(undefined, 'c');
    expect(got).toEqual(['fn:a', 'w:b']);
  });
});
