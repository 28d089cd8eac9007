import { HEADER_CATALOG, SUPPORTED_HEADERS } from './catalog.js';
import { HeaderNotFoundError, UnknownNameError } from './errors.js';
import { findFolder, type FolderLocation } from './find-in-layout.js';
import { defaultLibraryFinder } from './find-library.js';
import { SearchEnvironment, type SearchOptions } from './search-environment.js';

/** A header folder that was found: pass `path` to a compiler as `-I`. */
export interface HeaderDirectory extends FolderLocation {
  readonly name: string;
}

const cache = new Map<string, HeaderDirectory>();

/**
 * Finds the folder that holds a CUDA header set: `cuda` (cuda.h), `cudart`
 * (cuda_runtime.h), `nvrtc` (nvrtc.h), `nvvm` (nvvm.h) or `cccl` (libcu++,
 * CUB, Thrust). Override with `CUDA_JS_INCLUDE_<NAME>`.
 *
 * @throws {UnknownNameError} for a name not in {@link SUPPORTED_HEADERS}
 * @throws {HeaderNotFoundError} listing every place tried
 */
export function findHeaderDirectory(name: string, options?: SearchOptions): HeaderDirectory {
  const d = HEADER_CATALOG.find((h) => h.name === name);
  if (!d) throw new UnknownNameError('header set', name, SUPPORTED_HEADERS);
  if (!options) {
    const hit = cache.get(name);
    if (hit) return hit;
  }
  const environment = options
    ? new SearchEnvironment(options, 'findHeaderDirectory')
    : defaultLibraryFinder().environment;
  const overrideVariable = `CUDA_JS_INCLUDE_${name.toUpperCase()}`;
  const { found, attempts } = findFolder({ ...d, overrideVariable }, environment);
  if (!found)
    throw new HeaderNotFoundError(
      name,
      attempts,
      `Install the CUDA headers, or set ${overrideVariable} to the folder that holds ${d.marker}.`,
    );
  const result = { name, ...found };
  if (!options) cache.set(name, result);
  return result;
}

export function clearHeaderCache(): void {
  cache.clear();
}
