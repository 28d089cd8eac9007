import { findLibdevice, readRegularFile } from '@cuda-js/pathfinder';
import { ProgramError } from './errors.js';

/** The largest libdevice read: the file is under 1 MiB. */
const MAX_LIBDEVICE_BYTES = 64 << 20;

let cached: { readonly path: string; readonly bytes: Uint8Array } | undefined;

/**
 * libdevice.10.bc as found by pathfinder, read once per process.
 *
 * @throws {LibdeviceNotFoundError} listing every place tried
 */
export function libdevice(): { readonly path: string; readonly bytes: Uint8Array } {
  if (!cached) {
    const { path } = findLibdevice();
    const file = readRegularFile(
      path,
      { maxBytes: MAX_LIBDEVICE_BYTES },
      (problem) => new ProgramError(`libdevice cannot be read: ${problem}`),
    );
    cached = { path, bytes: new Uint8Array(file.buffer, file.byteOffset, file.byteLength) };
  }
  return cached;
}
