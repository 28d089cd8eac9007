import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSourceText } from './source-text.js';

const SOURCE_MAPPING_URL = /\/\/[#@] sourceMappingURL=([^\s'"]+)\s*$/;

/** The source map that a script names on its last lines (inline as a data URL, or a file beside it), or undefined. */
export function sourceMapOf(scriptSource: string, scriptPath: string | undefined): SourceMapPayload | undefined {
  const tail = scriptSource.slice(Math.max(0, scriptSource.length - 4096 * 1024));
  const lastLines = tail.trimEnd().split('\n').slice(-2).join('\n');
  const m = SOURCE_MAPPING_URL.exec(lastLines);
  if (!m) return undefined;
  const ref = m[1]!;
  try {
    const inline = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.*)$/.exec(ref);
    if (inline) return JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as SourceMapPayload;
    if (!scriptPath || ref.includes(':')) return undefined;
    // a map file beside the script (tsc's `sourceMap`, a bundler's `.js.map`)
    const text = readSourceText(resolve(dirname(scriptPath), ref));
    return text === undefined ? undefined : (JSON.parse(text) as SourceMapPayload);
  } catch {
    return undefined;
  }
}

/** A position in an original file, 1-based, with that file's text where the map carries it. */
export interface OriginalPosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly content?: string;
}

/**
 * The original position of 0-based `line`:`column` of a script, through the
 * script's source map; the column is carried on from the nearest mapped
 * position before it on the same line. Undefined without a map, or where
 * it maps nothing there.
 */
export function mapThroughSourceMap(
  scriptSource: string,
  scriptPath: string | undefined,
  line: number,
  column: number,
  payload = sourceMapOf(scriptSource, scriptPath),
): OriginalPosition | undefined {
  if (!payload) return undefined;
  let map: SourceMap;
  try {
    map = new SourceMap(payload);
  } catch {
    return undefined;
  }
  const entry = map.findEntry(line, column) as {
    generatedLine?: number;
    generatedColumn?: number;
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
  };
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined)
    return undefined;
  const source = entry.originalSource;
  const file = source.startsWith('file://')
    ? fileURLToPath(source)
    : isAbsolute(source)
      ? source
      : scriptPath
        ? resolve(dirname(scriptPath), source)
        : undefined;
  if (!file) return undefined;
  const carried =
    entry.generatedLine === line && entry.generatedColumn !== undefined ? column - entry.generatedColumn : 0;
  const index = payload.sources.findIndex(
    (s) => s === source || (scriptPath !== undefined && resolve(dirname(scriptPath), s) === file),
  );
  const content = index === -1 ? undefined : (payload.sourcesContent?.[index] ?? undefined);
  return {
    file,
    line: entry.originalLine + 1,
    column: entry.originalColumn + 1 + carried,
    ...(content ? { content } : {}),
  };
}
