import { join } from 'node:path';
import type { SearchAttempt } from './errors.js';
import { isDirectory, isFile } from './file-search.js';
import type { SearchEnvironment } from './search-environment.js';

/** Where a file of a toolkit lies in each kind of installation. */
export interface FileLayout {
  /** The environment variable that overrides the search (a folder). */
  readonly overrideVariable: string;
  /** The file whose presence marks the folder, relative to it. */
  readonly marker: string;
  readonly pipDirectories: readonly string[];
  readonly toolkitDirectories: readonly string[];
  readonly systemDirectories: readonly string[];
}

/** A folder that holds the marker, with the source that gave it. */
export interface FolderLocation {
  readonly path: string;
  readonly foundVia: string;
}

/**
 * Searches the same sources as `findLibrary`, in the same order, for a folder
 * that holds `layout.marker`: override, site-packages, conda, the toolkit
 * roots, then distribution folders.
 */
export function findFolder(
  layout: FileLayout,
  environment: SearchEnvironment,
): { found?: FolderLocation; attempts: SearchAttempt[] } {
  const attempts: SearchAttempt[] = [];
  const check = (source: string, dir: string): FolderLocation | undefined => {
    if (isFile(join(dir, layout.marker))) return { path: dir, foundVia: source };
    attempts.push({ source, location: dir, reason: isDirectory(dir) ? `no ${layout.marker} here` : 'no such folder' });
    return undefined;
  };
  const override = environment.env[layout.overrideVariable];
  if (override) {
    const hit = check('override', override);
    return hit ? { found: hit, attempts } : { attempts };
  }
  attempts.push({ source: 'override', location: layout.overrideVariable, reason: 'not set' });

  const sp = environment.sitePackages;
  for (const problem of sp.problems) attempts.push({ source: 'site-packages', location: 'python', reason: problem });
  for (const site of sp.directories) {
    for (const sub of layout.pipDirectories) {
      const dir = join(site, sub);
      if (!isDirectory(dir)) continue;
      const hit = check('site-packages', dir);
      if (hit) return { found: hit, attempts };
    }
  }
  if (sp.directories.length)
    attempts.push({ source: 'site-packages', location: sp.directories.join(', '), reason: 'no NVIDIA wheel with it' });

  const roots: { source: string; root: string }[] = [];
  const conda = environment.condaPrefix();
  if (conda) roots.push({ source: 'conda', root: conda });
  else attempts.push({ source: 'conda', location: 'CONDA_PREFIX', reason: 'not set' });
  roots.push(...environment.toolkitRoots());
  for (const { source, root } of roots) {
    if (!isDirectory(root)) {
      attempts.push({ source, location: root, reason: 'no such folder' });
      continue;
    }
    for (const sub of environment.toolkitDirectories(layout.toolkitDirectories)) {
      const hit = check(source, join(root, sub));
      if (hit) return { found: hit, attempts };
    }
  }
  if (environment.systemDirectories) {
    for (const dir of layout.systemDirectories) {
      const hit = check('system', dir);
      if (hit) return { found: hit, attempts };
    }
  }
  return { attempts };
}
