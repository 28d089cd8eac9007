import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

/**
 * node:crypto, loaded on first use (a cache key hashed, an entry written):
 * a static import of it costs its load, a few milliseconds, at every import
 * of the package and of the stack above it, whether or not anything is cached.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return loaded;
}
