import { createRequire } from 'node:module';

let loaded: typeof import('node:child_process') | undefined;

/**
 * node:child_process, loaded on first use: a static import of it costs its
 * load at every import of the package (and of the stack above it, at a cold start),
 * and only a search that asks the system loader's cache or python runs a process.
 */
export function childProcess(): typeof import('node:child_process') {
  loaded ??= createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  return loaded;
}
