import type { Loc, SourceLocator, SourcePosition } from '../errors.js';
import type { KernelRecord } from './kernel-record.js';
import { snippet } from './source-locator.js';
import { readSourceText } from './source-text.js';

/** The most spaces put before a snippet's first line to stand for the file's text before the kernel. */
const MAX_SNIPPET_INDENT = 240;

/**
 * Positions of a kernel that the build plugin recorded (kernel-record.ts):
 * offsets in the recorded text map to the original file by the record
 * alone, with no file to read and no text to align, whatever the bundler or
 * minifier did to the code that runs.
 */
export class RecordedLocator implements SourceLocator {
  #fileLines: string[] | null | undefined;

  constructor(readonly record: KernelRecord) {}

  position(loc: Loc): SourcePosition {
    const r = this.record;
    const offset = Math.max(0, Math.min(loc.start, r.source.length));
    const text = r.original ?? r.source;
    let line: number;
    let column: number;
    let lineText: string;
    let at: number;
    const anchor = r.positions ? nearestAnchor(r.positions, offset) : undefined;
    if (anchor) {
      // the anchor's place in the file, then what follows it in the text, on the same line
      const between = r.source.slice(anchor[0], offset);
      const newline = between.lastIndexOf('\n');
      line = anchor[1] + countNewlines(between);
      column = newline === -1 ? anchor[2] + between.length : between.length - newline;
      lineText = this.#fileLine(line) ?? lineOf(text, offset).text;
      at = column - 1;
    } else {
      // the text keeps the file's layout from `line:column` on
      const before = r.source.slice(0, offset);
      const newline = before.lastIndexOf('\n');
      line = r.line + countNewlines(before);
      column = newline === -1 ? r.column + offset : offset - newline;
      const own = lineOf(text, offset);
      const fileLine = this.#fileLine(line);
      // the first line of the text starts at `column` of the file's line: indent the snippet to match, within
      // reason (a record's column is the plugin's word: a line of a million spaces says nothing more)
      const pad = fileLine === undefined && newline === -1 && r.column - 1 <= MAX_SNIPPET_INDENT ? r.column - 1 : 0;
      lineText = fileLine ?? ' '.repeat(pad) + own.text;
      at = fileLine !== undefined || newline !== -1 ? column - 1 : pad + offset;
    }
    return { file: r.file, line, column, snippet: snippet(lineText, at, loc.end - loc.start) };
  }

  /** The file's own line, where the file is there to read (a machine that built the app). */
  #fileLine(line: number): string | undefined {
    if (this.#fileLines === undefined) {
      this.#fileLines = readSourceText(this.record.file)?.split('\n') ?? null;
    }
    return this.#fileLines?.[line - 1]?.replace(/\r$/, '');
  }
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function lineOf(text: string, offset: number): { text: string; start: number } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return { text: text.slice(start, end === -1 ? undefined : end).replace(/\r$/, ''), start };
}

function nearestAnchor(
  positions: readonly (readonly [number, number, number])[],
  offset: number,
): readonly [number, number, number] | undefined {
  let best: readonly [number, number, number] | undefined;
  for (const p of positions) {
    if (p[0] > offset) break;
    best = p;
  }
  return best ?? positions[0];
}
