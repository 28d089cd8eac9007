// Code files (ObjectCode.from*, libdevice) are file-system input like the cache's entries
// (issue 20): read only as regular files, opened without blocking (a FIFO would block
// readFileSync for ever), of bounded size (a link to /dev/zero grew memory without end).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The largest code file read: a whole program's fatbin is far smaller. */
export const MAX_CODE_FILE_BYTES = 1 << 30;

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them.
 * A file that is missing or unreadable throws the system's error as it is;
 * one that is no regular file, or too large, throws `refuse(problem)`.
 */
export function readRegularFile(path: string, maxBytes: number, refuse: (problem: string) => Error): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse(`${path} is not a regular file (${stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a device or socket'})`);
    if (stat.size > maxBytes) throw refuse(`${path} has ${stat.size} bytes, more than the ${maxBytes} read`);
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const got = readSync(fd, bytes, at, bytes.length - at, at);
      if (got === 0) break; // shrunk while read: the bytes that are there
      at += got;
    }
    return bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}
