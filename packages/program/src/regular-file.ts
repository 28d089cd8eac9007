// Code files (ObjectCode.from*, libdevice) are file-system input like the cache's entries
// (issue 20): read only as regular files, opened without blocking (a FIFO would block
// readFileSync for ever), of bounded size (a link to /dev/zero grew memory without end).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The largest code file read: a whole program's fatbin is far smaller. */
export const MAX_CODE_FILE_BYTES = 1 << 30;

/** How large a file read with {@link readRegularFile} may be: at most `maxBytes`, or exactly `exactBytes` (the size a manifest says). */
export type RegularFileLimit = { readonly maxBytes: number } | { readonly exactBytes: number };

/**
 * The bytes of the regular file at `path`, of the size `limit` allows (the
 * one home of this rule for program and the packages above it: code
 * files, kernel artifacts). A file that is missing or unreadable throws the
 * system's error as it is; one that is no regular file, of another size, or
 * that shrinks while read throws `refuse(problem)`.
 */
export function readRegularFile(path: string, limit: RegularFileLimit, refuse: (problem: string) => Error): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse(`${path} is not a regular file (${stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a device or socket'})`);
    if ('exactBytes' in limit ? stat.size !== limit.exactBytes : stat.size > limit.maxBytes) {
      throw refuse(`${path} has ${stat.size} bytes, ${'exactBytes' in limit ? `the manifest says ${limit.exactBytes}` : `more than the ${limit.maxBytes} read`}`);
    }
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const got = readSync(fd, bytes, at, bytes.length - at, at);
      if (got === 0) throw refuse(`${path} ended after ${at} of its ${bytes.length} bytes (it shrank while read)`);
      at += got;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
