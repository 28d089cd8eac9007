// The name that a kernel is assigned to where it is made, read from the
// file at the call site of jit() (no build plugin: the plugin records it as
// the record's `binding`). `const saxpy = jit((a, x, y) => ...)` is `saxpy`
// to the user, as `@cuda.jit def saxpy` is to numba's; an arrow function
// passed to jit() has no name of its own. Read only when the kernel's name
// is asked for (a message, a compile, a build), once per kernel.
import type { CallSite } from './source-locator.js';
import { readSourceText } from './source-text.js';

/** A line longer than this is a minified bundle's: its names are the minifier's, not the user's. */
const MAX_LINE = 2000;
/** The files whose lines were read, the latest last (a module defines its kernels together). */
const FILES = new Map<string, readonly string[] | null>();
const MAX_FILES = 8;

const NAME = '[A-Za-z_$][\\w$]*';
/** What the column of a call site starts: the callee's own name (`jit` of `ns.jit(`, `withConstants` of `jit.withConstants(`), then `(`. */
const CALLEE = new RegExp(`^${NAME}\\s*\\(`);
/** The namespaces before the callee's name (`cj.`, `cj.jit.`), taken off the end of the text before it. */
const NAMESPACES = new RegExp(`(?:${NAME}\\s*\\.\\s*)*$`);
/** `const saxpy =`, `export let saxpy: T =` (a type without `=`). */
const DECLARATION = new RegExp(`(?:^|[\\s;{(,])(?:const|let|var)\\s+(${NAME})\\s*(?::[^=]*)?=\\s*$`);
/** `saxpy =`, `exports.saxpy =` (not `==`, `<=`, `+=`: the `=` follows a name). */
const ASSIGNMENT = new RegExp(`(?:^|[\\s;{(,])(?:${NAME}\\s*\\.\\s*)*(${NAME})\\s*=\\s*$`);
/** `{ saxpy:` or a property on a line of its own (not `a ? b :`). */
const PROPERTY = new RegExp(`(?:^|[{,])\\s*(${NAME}|'[^'\\n]*'|"[^"\\n]*")\\s*:\\s*$`);

function linesOf(file: string): readonly string[] | undefined {
  let lines = FILES.get(file);
  if (lines === undefined) {
    lines = readSourceText(file)?.split('\n') ?? null;
    if (FILES.size >= MAX_FILES) FILES.delete(FILES.keys().next().value!);
    FILES.set(file, lines);
  }
  return lines ?? undefined;
}

/** The name that `before` (the text before a call's callee, on its line) assigns the call to, where it assigns it to one. */
export function bindingBefore(before: string): string | undefined {
  const text = before.replace(NAMESPACES, '');
  const m = DECLARATION.exec(text) ?? ASSIGNMENT.exec(text) ?? PROPERTY.exec(text);
  if (!m) return undefined;
  const name = m[1]!;
  return name.startsWith("'") || name.startsWith('"') ? name.slice(1, -1) || undefined : name;
}

/**
 * The name that the call at `site` (of `jit`, `jit.withConstants`) is
 * assigned to, where the file is there to read and its text at `site` is a
 * call assigned to a name; else undefined. The text at the site must be the
 * callee and its `(`, so that a site that does not point at the call (code
 * compiled without a source map) gives no name rather than a wrong one.
 */
export function callSiteBinding(site: CallSite | undefined): string | undefined {
  if (site === undefined) return undefined;
  const lines = linesOf(site.file);
  const line = lines?.[site.line - 1]?.replace(/\r$/, '');
  if (line === undefined || line.length > MAX_LINE || site.column < 1 || !CALLEE.test(line.slice(site.column - 1)))
    return undefined;
  const before = line.slice(0, site.column - 1);
  // `const saxpy =` on the line above (a long call broken after the `=`)
  if (before.trim() === '' || NAMESPACES.exec(before)?.index === before.search(/\S/)) {
    const previous = lines?.[site.line - 2]?.replace(/\r$/, '');
    return previous === undefined || previous.length > MAX_LINE ? undefined : bindingBefore(`${previous} ${before}`);
  }
  return bindingBefore(before);
}
