// Reads a file of a kernel artifact as issue 20 asks of every file-system input: only a
// regular file, opened without blocking (a FIFO would block the open, and readFileSync then
// waits forever), of at most a known size (a symlink to /dev/zero grew memory without end).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The bytes of the regular file at `path`, which must hold at most
 * `maxBytes` (exactly `exactBytes` where that is given).
 *
 * @throws {Error} with a message saying what the file is instead (the caller names the artifact)
 */
export function readRegularFile(path: string, limit: { maxBytes: number } | { exactBytes: number }): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is not a regular file (${stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a device or socket'})`);
    if ('exactBytes' in limit ? stat.size !== limit.exactBytes : stat.size > limit.maxBytes) {
      const want = 'exactBytes' in limit ? `the manifest says ${limit.exactBytes}` : `more than the ${limit.maxBytes} read`;
      throw new Error(`${path} has ${stat.size} bytes, ${want}`);
    }
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const got = readSync(fd, bytes, at, bytes.length - at, at);
      if (got === 0) throw new Error(`${path} ended after ${at} of its ${bytes.length} bytes (it shrank while read)`);
      at += got;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
