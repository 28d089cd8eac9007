import { readRegularFile } from './regular-file.js';

/**
 * The first `maxBytes` bytes of the regular file at `path`, as UTF-8, or
 * undefined where there is none (missing, unreadable, a FIFO, a device or
 * a folder): what a version file says, where there is one.
 */
export function filePrefix(path: string, maxBytes: number): string | undefined {
  try {
    return readRegularFile(path, { firstBytes: maxBytes }, (problem) => new Error(problem)).toString('utf8');
  } catch {
    return undefined;
  }
}
