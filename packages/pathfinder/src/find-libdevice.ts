import { join } from 'node:path';
import {
  LIBDEVICE_FILE,
  LIBDEVICE_PIP_DIRECTORIES,
  LIBDEVICE_SYSTEM_DIRECTORIES,
  LIBDEVICE_TOOLKIT_DIRECTORIES,
} from './catalog.js';
import { LibdeviceNotFoundError } from './errors.js';
import { findFolder } from './find-in-layout.js';
import { defaultLibraryFinder } from './find-library.js';
import { SearchEnvironment, type SearchOptions } from './search-environment.js';

/** libdevice.10.bc, the bitcode math library that NVVM IR links against. */
export interface LibdeviceLocation {
  readonly path: string;
  readonly foundVia: string;
}

let cached: LibdeviceLocation | undefined;

/**
 * Finds `libdevice.10.bc` in the same places as the libraries (override:
 * `CUDA_JS_LIBDEVICE_DIR`, a folder).
 *
 * @throws {LibdeviceNotFoundError} listing every place tried
 */
export function findLibdevice(options?: SearchOptions): LibdeviceLocation {
  if (!options && cached) return cached;
  const environment = options ? new SearchEnvironment(options, 'findLibdevice') : defaultLibraryFinder().environment;
  const { found, attempts } = findFolder(
    {
      overrideVariable: 'CUDA_JS_LIBDEVICE_DIR',
      marker: LIBDEVICE_FILE,
      pipDirectories: LIBDEVICE_PIP_DIRECTORIES,
      toolkitDirectories: LIBDEVICE_TOOLKIT_DIRECTORIES,
      systemDirectories: LIBDEVICE_SYSTEM_DIRECTORIES,
    },
    environment,
  );
  if (!found)
    throw new LibdeviceNotFoundError(attempts, 'Install the CUDA toolkit (nvvm), or set CUDA_JS_LIBDEVICE_DIR.');
  const result = { path: join(found.path, LIBDEVICE_FILE), foundVia: found.foundVia };
  if (!options) cached = result;
  return result;
}

export function clearLibdeviceCache(): void {
  cached = undefined;
}
