import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The first `maxBytes` bytes of the regular file at `path`, as UTF-8, or
 * undefined where there is none. Opened without blocking and read no
 * further than `maxBytes` (issue 20: a FIFO blocked readFileSync for ever,
 * and a link to /dev/zero grew memory without end); a FIFO, a device or a
 * folder is no file here.
 */
export function filePrefix(path: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const bytes = Buffer.alloc(Math.min(stat.size, maxBytes));
    let at = 0;
    while (at < bytes.length) {
      const got = readSync(fd, bytes, at, bytes.length - at, at);
      if (got === 0) break;
      at += got;
    }
    return bytes.toString('utf8', 0, at);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
