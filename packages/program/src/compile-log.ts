/**
 * Where compile and link logs go: a function, or anything with a `write`
 * method (`process.stderr`, a stream), as cuda.core's `logs` argument.
 */
export type LogSink = ((text: string) => void) | { write(text: string): unknown };

/** Option check: undefined for a usable {@link LogSink}, else what is expected. */
export function isLogSink(value: unknown): string | undefined {
  const writable =
    value !== null && typeof value === 'object' && typeof (value as { write?: unknown }).write === 'function';
  return typeof value === 'function' || writable ? undefined : 'a function or an object with a write method';
}

/** Hands `text` to `sink`, if both are there. */
export function writeLog(sink: LogSink | undefined, text: string): void {
  if (!sink || text.length === 0) return;
  if (typeof sink === 'function') sink(text);
  else sink.write(text);
}

/** One message of a compiler log. */
export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  /** Where the compiler gives one (libNVVM does, NVRTC does not). */
  readonly column: number | undefined;
  readonly severity: 'error' | 'warning' | 'remark' | 'note';
  readonly message: string;
}

// NVRTC: `kernel.cu(12): error: identifier "x" is undefined` (optionally `error #20-D:`).
const NVRTC_LINE = /^(.+?)\((\d+)\): (error|warning|remark|note)(?: #[\w-]+)?: (.*)$/;
// LLVM style: `program.ll:12:7: error: ...`.
const LLVM_LINE = /^(.+?):(\d+):(\d+): (error|warning|remark|note): (.*)$/;
// libNVVM's parser: `program.ll (12, 7): parse expected type`.
const NVVM_LINE = /^(.+?) \((\d+), (\d+)\): (.*)$/;

/**
 * The messages of an NVRTC or libNVVM log, with their file and line, in
 * order. Lines that are not messages (source excerpts, carets, summaries)
 * are skipped.
 */
export function parseDiagnostics(log: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of log.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const nvrtc = NVRTC_LINE.exec(line);
    if (nvrtc) {
      out.push({
        file: nvrtc[1]!,
        line: Number(nvrtc[2]),
        column: undefined,
        severity: nvrtc[3] as Diagnostic['severity'],
        message: nvrtc[4]!,
      });
      continue;
    }
    const llvm = LLVM_LINE.exec(line);
    if (llvm) {
      out.push({
        file: llvm[1]!,
        line: Number(llvm[2]),
        column: Number(llvm[3]),
        severity: llvm[4] as Diagnostic['severity'],
        message: llvm[5]!,
      });
      continue;
    }
    const nvvm = NVVM_LINE.exec(line);
    if (nvvm)
      out.push({
        file: nvvm[1]!,
        line: Number(nvvm[2]),
        column: Number(nvvm[3]),
        severity: 'error',
        message: nvvm[4]!,
      });
  }
  return out;
}
