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
  if (constants === null || typeof constants !== 'object')
    throw new JitError(
      `${what}: constants must be an object of named values, got ${constants === null ? 'null' : typeof constants}`,
    );
  const snapshot: Record<string, KernelConstant> = {};
  for (const name of Object.getOwnPropertyNames(constants)) {
    snapshot[name] = snapshotArray((constants as Record<string, KernelConstant>)[name]!);
  }
  return Object.freeze(snapshot);
}

/** Elements past this are more than constant memory holds (64 KiB): such an array is left as it is, for the typer to refuse by its length. */
const MAX_SNAPSHOT_ELEMENTS = 1 << 16;

/**
 * A JS array constant (plain, or a Proxy of one) read once: its length and
 * each own element (a getter called once, holes kept as holes) into a frozen
 * copy, so that the typer, the constant memory and the cache key see the
 * same elements. Typed arrays have no getters; anything else is as it is.
 */
function snapshotArray(value: KernelConstant): KernelConstant {
  if (!Array.isArray(value)) return value;
  const length: unknown = value.length;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0 || length > MAX_SNAPSHOT_ELEMENTS)
    return value;
  const copy: unknown[] = new Array(length);
  for (let i = 0; i < length; i++) if (Object.hasOwn(value, i)) copy[i] = value[i];
  return Object.freeze(copy) as KernelConstant;
}
