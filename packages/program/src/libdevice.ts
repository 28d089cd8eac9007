import { readFileSync } from 'node:fs';
import { findLibdevice } from '@cuda-js/pathfinder';

let cached: { readonly path: string; readonly bytes: Uint8Array } | undefined;

/**
 * libdevice.10.bc as found by pathfinder, read once per process.
 *
 * @throws {LibdeviceNotFoundError} listing every place tried
 */
export function libdevice(): { readonly path: string; readonly bytes: Uint8Array } {
  if (!cached) {
    const { path } = findLibdevice();
    cached = { path, bytes: new Uint8Array(readFileSync(path)) };
  }
  return cached;
}
