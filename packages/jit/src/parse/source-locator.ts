import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loc, SourceLocator, SourcePosition } from '../errors.js';
import { mapThroughSourceMap } from './script-source-map.js';
import { readSourceText } from './source-text.js';
import { moduleFile } from '../module-file.js';

/** Where `jit(fn)` was called: the user's file and position, from the stack. */
export interface CallSite {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** The folder of the package that holds `file` (the nearest with a package.json). */
function packageDirectory(file: string): string {
  for (let dir = dirname(file); ; ) {
    if (existsSync(join(dir, 'package.json'))) return `${dir}${sep}`;
    const up = dirname(dir);
    if (up === dir) return dirname(file);
    dir = up;
  }
}

const OWN_FILE = moduleFile(import.meta.url);
// This package's own frames are skipped: its sources while testing, its dist (bundled or not) once built.
const OWN_DIRECTORY = packageDirectory(OWN_FILE);
/**
 * Whether this module was bundled into someone else's file (an app's
 * bundle): then the folder around it is the app's, and only the frames
 * before the JIT's entry point (`jit`, `jit.device`) are the JIT's.
 */
const BUNDLED = !isJitPackage(OWN_DIRECTORY);

function isJitPackage(dir: string): boolean {
  try {
    const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    return name === '@cuda-js/jit';
  } catch {
    return false;
  }
}
// the path starts after `at ` or `(`: a `node:internal/...` frame is no file
const FRAME = /(?:^|[\s(])((?:file:\/\/|\/|[A-Za-z]:[\\/])[^()]*?):(\d+):(\d+)\)?\s*$/;

/**
 * The first stack frame outside this package: the user's call of `jit`.
 * Where the JIT was bundled into the app's own file, the frames before
 * `entry` (the public function the user called) are skipped instead.
 * Cheap: the file is read only if an error needs it.
 */
export function captureCallSite(entry?: (...args: never[]) => unknown): CallSite | undefined {
  const holder: { stack?: string } = {};
  if (BUNDLED && entry) Error.captureStackTrace(holder, entry);
  else Error.captureStackTrace(holder, captureCallSite);
  const stack = holder.stack;
  if (!stack) return undefined;
  for (const line of stack.split('\n').slice(1)) {
    // node's own modules (node:internal/...) are never the user's
    if (/\(node:|\sat node:/.test(line)) continue;
    const m = FRAME.exec(line);
    if (!m) continue;
    const file = m[1]!.startsWith('file://') ? safeFileURLToPath(m[1]!) : m[1]!;
    if (file === undefined) continue;
    // this package's modules are skipped, its own tests are not (they stand for a user's file)
    if (!BUNDLED && file.startsWith(OWN_DIRECTORY) && !/\.test\.[cm]?[jt]s$/.test(file)) continue;
    // bundled without an entry to start from: the bundle's frames are the JIT's and the app's alike (definition-site.ts finds the kernel then)
    if (BUNDLED && !entry && file === OWN_FILE) continue;
    return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

function safeFileURLToPath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

interface Token {
  readonly value: string;
  readonly start: number;
  /** Where a compiler's prefix of the token began (`ns.` of `ns.f`): it maps to the same place. */
  readonly prefix?: number;
}

// Good enough to align a function's text with the file it came from: names,
// numbers, strings and single punctuation characters; comments are skipped.
// Quoted strings end at the line's end (as JavaScript's do), so that a quote
// inside a regular expression literal (/it's/) cannot swallow the code after it.
const TOKEN =
  /\/\/[^\n]*|\/\*[\s\S]*?\*\/|[A-Za-z_$][\w$]*|\d[\w.]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`|\S/g;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    if (m[0].startsWith('//') || m[0].startsWith('/*')) continue;
    tokens.push({ value: m[0], start: m.index });
  }
  return tokens;
}

const isWord = (value: string): boolean => /^[\w$]/.test(value);

/**
 * The kernel's tokens without what a compiler put in front of imported
 * names: `(0, ns.f)` is matched as `f`, and `ns.f` as `f` where `ns` is no
 * name of the file (`__vite_ssr_import_0__.f32`, `jit_1.cuda`). Left in,
 * their `0` and `,` would be matched with a later `0` of the file and
 * throw the alignment off.
 */
function withoutCompilerPrefixes(own: readonly Token[], fileWords: ReadonlySet<string>): Token[] {
  const out: Token[] = [];
  const at = (i: number): string | undefined => own[i]?.value;
  for (let i = 0; i < own.length; i++) {
    const t = own[i]!;
    // (0, ns.f): keep f only
    if (
      t.value === '(' &&
      at(i + 1) === '0' &&
      at(i + 2) === ',' &&
      isWord(at(i + 3) ?? '') &&
      at(i + 4) === '.' &&
      isWord(at(i + 5) ?? '') &&
      at(i + 6) === ')'
    ) {
      out.push({ ...own[i + 5]!, prefix: t.start });
      i += 6;
      continue;
    }
    // ns.f where ns is not in the file
    if (
      isWord(t.value) &&
      !fileWords.has(t.value) &&
      at(i + 1) === '.' &&
      isWord(at(i + 2) ?? '') &&
      at(i - 1) !== '.'
    ) {
      out.push({ ...own[i + 2]!, prefix: t.start });
      i += 2;
      continue;
    }
    out.push(t);
  }
  return out;
}

/** Greedy in-order matching of the kernel's tokens with the file's, from file token `from`. */
function alignFrom(own: readonly Token[], theirs: readonly Token[], from: number): { own: number; file: number }[] {
  const mapped: { own: number; file: number }[] = [];
  let j = from;
  for (const token of own) {
    // names and numbers may be found a little further on (types stripped in between); punctuation only right away
    const reach = isWord(token.value) ? 64 : 1;
    for (let k = j; k < Math.min(theirs.length, j + reach); k++) {
      if (theirs[k]!.value === token.value) {
        if (token.prefix !== undefined) mapped.push({ own: token.prefix, file: theirs[k]!.start });
        mapped.push({ own: token.start, file: theirs[k]!.start });
        j = k + 1;
        break;
      }
    }
  }
  return mapped;
}

function lineAt(text: string, lineStart: number): string {
  const lineEnd = text.indexOf('\n', lineStart);
  return text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, '');
}

/** The line with a caret (and tildes) under `width` characters from 0-based `column`. */
export function snippet(lineText: string, column: number, length: number): string {
  const width = Math.max(1, Math.min(length, lineText.length - column));
  const indent = lineText.slice(0, column).replace(/[^\t]/g, ' ');
  return `${lineText}\n${indent}^${'~'.repeat(width - 1)}`;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Maps offsets in a kernel's text to the user's file. The text is found in
 * the file as it is (plain JavaScript) or, where a compiler changed it
 * (TypeScript's types stripped, a bundler's renamed imports), by aligning
 * its tokens with the file's, starting at the call of `jit`. Where no file
 * can be read, positions are given within the kernel's own text.
 */
export class SourceMapper implements SourceLocator {
  #mapping: { text: string; file: string; map: (offset: number) => number; starts: number[] } | undefined;

  constructor(
    readonly source: string,
    readonly callSite: CallSite | undefined,
    /** Where the function itself is defined (asked only when a position is needed): a kernel made in another module than its `jit()` call. */
    readonly definedAt?: () => CallSite | undefined,
  ) {}

  position(loc: Loc): SourcePosition {
    const mapping = (this.#mapping ??= this.#build());
    const offset = mapping.map(Math.max(0, Math.min(loc.start, this.source.length)));
    const starts = mapping.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const lineStart = starts[lo]!;
    const column = offset - lineStart;
    // a bundle (or a compiler's output) with a source map: the position in the file it came from
    const original =
      mapping.file === '<kernel>' ? undefined : mapThroughSourceMap(mapping.text, mapping.file, lo, column);
    if (original) {
      const text = original.content ?? readSourceText(original.file);
      const lineText = text?.split('\n')[original.line - 1]?.replace(/\r$/, '') ?? lineAt(mapping.text, lineStart);
      return {
        file: original.file,
        line: original.line,
        column: original.column,
        snippet: snippet(lineText, original.column - 1, loc.end - loc.start),
      };
    }
    return {
      file: mapping.file,
      line: lo + 1,
      column: column + 1,
      snippet: snippet(lineAt(mapping.text, lineStart), column, loc.end - loc.start),
    };
  }

  #build(): { text: string; file: string; map: (offset: number) => number; starts: number[] } {
    const own = { text: this.source, file: '<kernel>', map: (o: number) => o, starts: lineStarts(this.source) };
    const atCall = this.callSite ? this.#mapNear(this.callSite) : undefined;
    if (atCall && !('unreadable' in atCall)) return atCall;
    // not in the file of the jit() call (or no call site): where V8 says the function is
    const defined = this.definedAt?.();
    const atDefinition = defined ? this.#mapNear(defined) : undefined;
    if (atDefinition && !('unreadable' in atDefinition)) return atDefinition;
    if (atCall) return { ...own, file: atCall.unreadable };
    return own;
  }

  /** The mapping into the file of `site`, found near its position; undefined where the kernel is not in that file. */
  #mapNear(
    site: CallSite,
  ):
    | { text: string; file: string; map: (offset: number) => number; starts: number[] }
    | { unreadable: string }
    | undefined {
    const text = readSourceText(site.file);
    if (text === undefined) return { unreadable: `${site.file} (kernel text; the file could not be read)` };
    const starts = lineStarts(text);
    const callOffset = (starts[site.line - 1] ?? 0) + site.column - 1;
    const exact = this.#nearestExactCopy(text, callOffset);
    if (exact !== undefined) return { text, file: site.file, map: (o) => exact + o, starts };
    const aligned = this.#align(text, callOffset);
    return aligned ? { text, file: site.file, map: aligned, starts } : undefined;
  }

  #nearestExactCopy(text: string, callOffset: number): number | undefined {
    let best: number | undefined;
    for (let i = text.indexOf(this.source); i !== -1; i = text.indexOf(this.source, i + 1)) {
      if (best === undefined || Math.abs(i - callOffset) < Math.abs(best - callOffset)) best = i;
    }
    return best;
  }

  /**
   * Offset map by token alignment: each token of the kernel text is matched
   * with the same token in the file, in order. Alignment is tried from every
   * place where the kernel's first name occurs; of the places that match
   * nearly as well as the best (within 10%), the nearest to the call of `jit` wins.
   */
  #align(text: string, callOffset: number): ((offset: number) => number) | undefined {
    const theirs = tokenize(text);
    const own = withoutCompilerPrefixes(
      tokenize(this.source),
      new Set(theirs.filter((t) => isWord(t.value)).map((t) => t.value)),
    );
    const firstWord = own.findIndex((t) => isWord(t.value));
    if (firstWord === -1 || theirs.length === 0) return undefined;
    const candidates: { mapped: { own: number; file: number }[]; distance: number }[] = [];
    for (let start = 0; start < theirs.length && candidates.length < 4096; start++) {
      if (theirs[start]!.value !== own[firstWord]!.value) continue;
      candidates.push({
        mapped: alignFrom(own, theirs, Math.max(0, start - firstWord)),
        distance: Math.abs(theirs[start]!.start - callOffset),
      });
    }
    const most = Math.max(0, ...candidates.map((c) => c.mapped.length));
    // most of the kernel's tokens must be found, else this is not where the kernel came from
    const needed = Math.max(3, Math.ceil(own.length * 0.6));
    if (most < needed) return undefined;
    // among the places that match about as well as the best (types stripped from the text cost a few
    // tokens, and a short kernel matches well in more than one place), the nearest to the call
    const good = Math.max(needed, Math.ceil(most * 0.9));
    let mapped: { own: number; file: number }[] = [];
    let nearest = Infinity;
    for (const c of candidates) {
      if (c.mapped.length < good) continue;
      if (c.distance < nearest || (c.distance === nearest && c.mapped.length > mapped.length)) {
        mapped = c.mapped;
        nearest = c.distance;
      }
    }
    return (offset: number) => {
      let lo = 0;
      let hi = mapped.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (mapped[mid]!.own <= offset) lo = mid;
        else hi = mid - 1;
      }
      const anchor = mapped[lo]!;
      return anchor.file + Math.max(0, offset - anchor.own);
    };
  }
}
