import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallSite } from './source-locator.js';

/**
 * Where a function is defined, in the user's own file: V8 knows the
 * position of every function in the script it ran (the inspector's
 * `[[FunctionLocation]]`), and where that script was transformed (vitest,
 * tsx, a compiler's output beside its source) its inline or linked source
 * map gives the original position. This finds a kernel that was defined in
 * another module than its `jit()` call. Costly (the inspector lists every
 * script), so it runs only when an error needs a position; undefined where
 * the inspector is unavailable or says nothing.
 */
export function definitionSite(fn: (...args: never[]) => unknown): CallSite | undefined {
  const key = Symbol.for('cuda-js.jit.definitionSite');
  const slot = globalThis as Record<symbol, unknown>;
  let session: Session | undefined;
  try {
    session = new Session();
    session.connect();
    const urls = new Map<string, string>();
    session.on('Debugger.scriptParsed', (message) => urls.set(message.params.scriptId, message.params.url));
    post(session, 'Debugger.enable');
    slot[key] = fn;
    const evaluated = post(session, 'Runtime.evaluate', { expression: "globalThis[Symbol.for('cuda-js.jit.definitionSite')]" }) as { result: { objectId?: string } };
    const objectId = evaluated.result.objectId;
    if (objectId === undefined) return undefined;
    const properties = post(session, 'Runtime.getProperties', { objectId, ownProperties: true }) as {
      internalProperties?: { name: string; value?: { value?: { scriptId: string; lineNumber: number; columnNumber: number } } }[];
    };
    const location = properties.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value;
    if (!location) return undefined;
    const url = urls.get(location.scriptId);
    if (!url) return undefined;
    const script = post(session, 'Debugger.getScriptSource', { scriptId: location.scriptId }) as { scriptSource: string };
    return originalPosition(url, script.scriptSource, location.lineNumber, location.columnNumber);
  } catch {
    return undefined;
  } finally {
    delete slot[key];
    try {
      session?.post('Debugger.disable');
      session?.disconnect();
    } catch {
      // the session is gone already
    }
  }
}

/** A same-thread inspector session answers during `post`: the answer is read at once. */
function post(session: Session, method: string, params?: object): unknown {
  let answered = false;
  let failure: Error | null = null;
  let result: unknown;
  session.post(method, params ?? {}, (error: Error | null, value?: unknown) => {
    answered = true;
    failure = error;
    result = value;
  });
  if (!answered) throw new Error(`the inspector did not answer ${method} at once`);
  if (failure) throw failure;
  return result;
}

function pathOf(url: string): string | undefined {
  if (url.startsWith('file://')) return fileURLToPath(url);
  return isAbsolute(url) ? url : undefined;
}

const SOURCE_MAPPING_URL = /\/\/[#@] sourceMappingURL=([^\s'"]+)\s*$/;

/** The 1-based position in the original file of a 0-based position in the script that ran. */
function originalPosition(url: string, scriptSource: string, line: number, column: number): CallSite | undefined {
  const scriptPath = pathOf(url);
  const payload = sourceMapOf(scriptSource, scriptPath);
  if (payload) {
    const entry = new SourceMap(payload).findEntry(line, column) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (entry.originalSource !== undefined && entry.originalLine !== undefined && entry.originalColumn !== undefined) {
      const source = entry.originalSource;
      const file = source.startsWith('file://') ? fileURLToPath(source) : isAbsolute(source) ? source : scriptPath ? resolve(dirname(scriptPath), source) : undefined;
      if (file) return { file, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
    }
  }
  return scriptPath ? { file: scriptPath, line: line + 1, column: column + 1 } : undefined;
}

function sourceMapOf(scriptSource: string, scriptPath: string | undefined): SourceMapPayload | undefined {
  const tail = scriptSource.slice(Math.max(0, scriptSource.length - 4096 * 1024));
  const lastLines = tail.trimEnd().split('\n').slice(-2).join('\n');
  const m = SOURCE_MAPPING_URL.exec(lastLines);
  if (!m) return undefined;
  const ref = m[1]!;
  const inline = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.*)$/.exec(ref);
  if (inline) return JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as SourceMapPayload;
  if (!scriptPath || ref.includes(':')) return undefined;
  // a map file beside the script (tsc's `sourceMap`)
  return JSON.parse(readFileSync(resolve(dirname(scriptPath), ref), 'utf8')) as SourceMapPayload;
}
