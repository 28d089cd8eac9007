export {
  LIBRARY_CATALOG,
  HEADER_CATALOG,
  SUPPORTED_LIBRARIES,
  SUPPORTED_HEADERS,
  COMPILER_LIBRARIES,
  type CudaMajor,
  type LibraryDescriptor,
  type HeaderDescriptor,
} from './catalog.js';
export {
  NotFoundError,
  LibraryNotFoundError,
  HeaderNotFoundError,
  LibdeviceNotFoundError,
  UnknownNameError,
  EnvironmentValueError,
  type SearchAttempt,
} from './errors.js';
export { findLibrary, type LibraryLocation, type FoundVia } from './find-library.js';
export { findHeaderDirectory, type HeaderDirectory } from './find-header-directory.js';
export { findLibdevice, type LibdeviceLocation } from './find-libdevice.js';
export { clearCache } from './clear-cache.js';
export type { SearchOptions } from './search-environment.js';
export { SearchOptionError } from './search-option-error.js';
export type { LoaderCacheEntry } from './loader-cache.js';
export { parseLoaderCache } from './loader-cache.js';
export { readRegularFile, readRegularFileAsync, type RegularFileLimit } from './regular-file.js';
