import type { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapThroughSourceMap } from './script-source-map.js';
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
    // node:inspector is loaded here, when an error needs a position, not when the JIT is imported
    const { Session: InspectorSession } = createRequire(import.meta.url)(
      'node:inspector',
    ) as typeof import('node:inspector');
    session = new InspectorSession();
    session.connect();
    const urls = new Map<string, string>();
    session.on('Debugger.scriptParsed', (message) => urls.set(message.params.scriptId, message.params.url));
    post(session, 'Debugger.enable');
    slot[key] = fn;
    const evaluated = post(session, 'Runtime.evaluate', {
      expression: "globalThis[Symbol.for('cuda-js.jit.definitionSite')]",
    }) as { result: { objectId?: string } };
    const objectId = evaluated.result.objectId;
    if (objectId === undefined) return undefined;
    const properties = post(session, 'Runtime.getProperties', { objectId, ownProperties: true }) as {
      internalProperties?: {
        name: string;
        value?: { value?: { scriptId: string; lineNumber: number; columnNumber: number } };
      }[];
    };
    const location = properties.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value;
    if (!location) return undefined;
    const url = urls.get(location.scriptId);
    if (!url) return undefined;
    const script = post(session, 'Debugger.getScriptSource', { scriptId: location.scriptId }) as {
      scriptSource: string;
    };
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

/** The 1-based position in the original file of a 0-based position in the script that ran. */
function originalPosition(url: string, scriptSource: string, line: number, column: number): CallSite | undefined {
  const scriptPath = pathOf(url);
  const mapped = mapThroughSourceMap(scriptSource, scriptPath, line, column);
  if (mapped) return { file: mapped.file, line: mapped.line, column: mapped.column };
  return scriptPath ? { file: scriptPath, line: line + 1, column: column + 1 } : undefined;
}
