// The one home of reading file-system input for the whole stack (issue 20):
// toolkit version files, code files, compile-cache entries, kernel artifacts.
// Read only as regular files, opened without blocking (a FIFO would block
// readFileSync for ever), of bounded size (a link to /dev/zero grew memory
// without end).
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * How much of a file {@link readRegularFile} reads: a whole file of at most
 * `maxBytes`, a whole file of exactly `exactBytes` (the size a manifest
 * says), or its first `firstBytes` (less where the file is shorter).
 */
export type RegularFileLimit =
  | { readonly maxBytes: number }
  | { readonly exactBytes: number }
  | { readonly firstBytes: number };

/** The bytes to read of a file of `stat`, or the problem that refuses it. */
function plannedBytes(path: string, stat: Stats, limit: RegularFileLimit): number | string {
  if (!stat.isFile())
    return `${path} is not a regular file (${stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a device or socket'})`;
  if ('firstBytes' in limit) return Math.min(stat.size, limit.firstBytes);
  if ('exactBytes' in limit)
    return stat.size === limit.exactBytes
      ? stat.size
      : `${path} has ${stat.size} bytes, the manifest says ${limit.exactBytes}`;
  return stat.size <= limit.maxBytes
    ? stat.size
    : `${path} has ${stat.size} bytes, more than the ${limit.maxBytes} read`;
}

/** The bytes read, or the problem where a whole file shrank while it was read (a prefix is what there is). */
function readOutcome(path: string, bytes: Buffer, got: number, limit: RegularFileLimit): Buffer | string {
  if (got === bytes.length || 'firstBytes' in limit) return bytes.subarray(0, got);
  return `${path} ended after ${got} of its ${bytes.length} bytes (it shrank while read)`;
}

/**
 * The bytes of the regular file at `path`, as much as `limit` allows. A
 * file that is missing or unreadable throws the system's error as it is;
 * one that is no regular file, of another size, or that shrinks while read
 * throws `refuse(problem)`, the caller's error with the problem in words.
 */
export function readRegularFile(path: string, limit: RegularFileLimit, refuse: (problem: string) => Error): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const planned = plannedBytes(path, fstatSync(fd), limit);
    if (typeof planned === 'string') throw refuse(planned);
    const bytes = Buffer.allocUnsafe(planned);
    let at = 0;
    for (let got = -1; at < bytes.length && got !== 0; at += got) got = readSync(fd, bytes, at, bytes.length - at, at);
    const outcome = readOutcome(path, bytes, at, limit);
    if (typeof outcome === 'string') throw refuse(outcome);
    return outcome;
  } finally {
    closeSync(fd);
  }
}

/** {@link readRegularFile} without blocking the event loop. */
export async function readRegularFileAsync(
  path: string,
  limit: RegularFileLimit,
  refuse: (problem: string) => Error,
): Promise<Buffer> {
  const handle = await open(path, READ_FLAGS);
  try {
    const planned = plannedBytes(path, await handle.stat(), limit);
    if (typeof planned === 'string') throw refuse(planned);
    const bytes = Buffer.allocUnsafe(planned);
    let at = 0;
    for (let got = -1; at < bytes.length && got !== 0; at += got)
      got = (await handle.read(bytes, at, bytes.length - at, at)).bytesRead;
    const outcome = readOutcome(path, bytes, at, limit);
    if (typeof outcome === 'string') throw refuse(outcome);
    return outcome;
  } finally {
    await handle.close();
  }
}
