import { readRegularFile } from '@cuda-js/pathfinder';

/** The largest source file or source map read for a kernel's text or an error's location. */
const MAX_SOURCE_BYTES = 256 << 20;

/**
 * The text of a source file or source map that a stack trace, a
 * `sourceMappingURL` comment or a kernel record names (file-system input:
 * read as a regular file of bounded size, without blocking), or undefined
 * where it cannot be read.
 */
export function readSourceText(path: string): string | undefined {
  try {
    return readRegularFile(path, { maxBytes: MAX_SOURCE_BYTES }, (problem) => new Error(problem)).toString('utf8');
  } catch {
    return undefined;
  }
}
