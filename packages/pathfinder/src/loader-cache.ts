import { childProcess } from './child-process.js';
import { existsSync } from 'node:fs';

/** One line of `ldconfig -p`: a soname and the file the system loader maps it to. */
export interface LoaderCacheEntry {
  readonly soname: string;
  readonly path: string;
}

const LDCONFIG_CANDIDATES = ['/sbin/ldconfig', '/usr/sbin/ldconfig', '/sbin/ldconfig.real'];

/** The ABI tag of this process in `ldconfig -p` output. */
function abiTag(): string {
  switch (process.arch) {
    case 'x64':
      return 'x86-64';
    case 'arm64':
      return 'AArch64';
    default:
      return process.arch;
  }
}

/** Parses `ldconfig -p` output, keeping only entries for this process's ABI. */
export function parseLoaderCache(text: string): LoaderCacheEntry[] {
  const tag = abiTag();
  const entries: LoaderCacheEntry[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*?)\s*$/.exec(line);
    if (!match) continue;
    const [, soname, flags, path] = match as unknown as [string, string, string, string];
    if (flags.includes(',') && !flags.includes(tag)) continue;
    entries.push({ soname, path });
  }
  return entries;
}

/** Reads the loader cache through `ldconfig -p`; an empty list (with the reason) where that fails. */
export function readLoaderCache(): { entries: LoaderCacheEntry[]; problem?: string } {
  const ldconfig = LDCONFIG_CANDIDATES.find((p) => existsSync(p)) ?? 'ldconfig';
  try {
    const text = childProcess().execFileSync(ldconfig, ['-p'], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { entries: parseLoaderCache(text) };
  } catch (error) {
    return { entries: [], problem: `could not run '${ldconfig} -p': ${(error as Error).message.split('\n')[0]}` };
  }
}
