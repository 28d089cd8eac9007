import { fileURLToPath } from 'node:url';

/**
 * The file that a module's code runs from, given its `import.meta.url`: the
 * package's own file, or the app's bundle where a bundler inlined it. A
 * bundler that made CommonJS of the code leaves `import.meta.url` undefined;
 * `__filename` then names the bundle (and the working directory stands in
 * where neither exists), so importing the JIT never fails on it.
 */
export function moduleFile(url: string | undefined): string {
  if (typeof url === 'string' && url.startsWith('file:')) return fileURLToPath(url);
  return typeof __filename === 'string' ? __filename : `${process.cwd()}/(bundle)`;
}
