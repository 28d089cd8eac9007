import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** True when `path` is an existing folder. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when `path` exists and is not a folder. */
export function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[0-9]+');
  return new RegExp(`^${escaped}$`);
}

/**
 * The files in `dir` that match `patterns` (file names, where `*` stands for
 * a number): at most one per pattern, in the order of `patterns`.
 */
export function findFilesIn(dir: string, patterns: readonly string[]): string[] {
  let listing: string[] | undefined;
  const hits: string[] = [];
  for (const pattern of patterns) {
    if (!pattern.includes('*')) {
      const path = join(dir, pattern);
      if (existsSync(path)) hits.push(path);
      continue;
    }
    try {
      listing ??= readdirSync(dir).sort().reverse();
    } catch {
      return hits;
    }
    const regexp = globToRegExp(pattern);
    const hit = listing.find((name) => regexp.test(name));
    if (hit) hits.push(join(dir, hit));
  }
  return hits;
}

/** Does `name` match one of `patterns`? */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.includes('*') ? globToRegExp(p).test(name) : p === name));
}
