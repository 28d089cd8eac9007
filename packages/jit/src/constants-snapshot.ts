import type { KernelConstant } from './device-function.js';
import { JitError } from './errors.js';

/**
 * The constants a kernel or device function is compiled with, read once:
 * every own string-named property (non-enumerable ones too), each getter
 * called once, into a frozen plain object. The typer, the lowering and the
 * disk cache's key all read this one snapshot, so the key comes from exactly
 * the values the compile read (a getter, a non-enumerable property or a
 * Proxy that hid its keys served a stale kernel in a new process).
 */
export function snapshotConstants(constants: unknown, what: string): Readonly<Record<string, KernelConstant>> {
  if (constants === undefined) return Object.freeze({});
  if (constants === null || typeof constants !== 'object') throw new JitError(`${what}: constants must be an object of named values, got ${constants === null ? 'null' : typeof constants}`);
  const snapshot: Record<string, KernelConstant> = {};
  for (const name of Object.getOwnPropertyNames(constants)) {
    snapshot[name] = (constants as Record<string, KernelConstant>)[name]!;
  }
  return Object.freeze(snapshot);
}
