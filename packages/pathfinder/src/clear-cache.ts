import { clearHeaderCache } from './find-header-directory.js';
import { clearLibdeviceCache } from './find-libdevice.js';
import { clearLibraryCache } from './find-library.js';

/** Forgets every cached search result of this process (the next search looks again). */
export function clearCache(): void {
  clearLibraryCache();
  clearHeaderCache();
  clearLibdeviceCache();
}
