import { nvml, NvmlError } from '@cuda-js/bindings';
import { SystemUnavailableError } from './system-unavailable-error.js';

/** NVML once per process: initialized on first use and kept (NVML counts its initializations; this is one of them). */
type Session =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string; readonly error: unknown };

let session: Session | undefined;

/** A one-line account of why NVML could not be opened or initialized. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // LibraryNotFoundError lists the places it tried, one a line: keep them all, on one line
  const lines = error.message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  let text = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++)
    text += /^\d+\./.test(lines[i]!) && /^\d+\./.test(lines[i - 1]!) ? `; ${lines[i]}` : ` ${lines[i]}`;
  return `${error.name}: ${text}`;
}

/** Whether NVML is usable here; the first call opens libnvidia-ml and runs `nvmlInit_v2`. */
export function nvmlSession(): Session {
  if (session) return session;
  try {
    nvml.nvmlInit_v2();
    session = { available: true };
  } catch (error) {
    // anything the first call can meet: no library (LibraryNotFoundError), one that does not load
    // (LibraryLoadError), no nvmlInit_v2 in it (FunctionNotFoundError), NVML's own refusal (NvmlError),
    // or no native addon at all (AddonLoadError)
    session = { available: false, reason: reasonOf(error), error };
  }
  return session;
}

/** Opens NVML where needed; throws {@link SystemUnavailableError} where it cannot be used. */
export function ensureNvml(): void {
  const s = nvmlSession();
  if (!s.available) throw new SystemUnavailableError(s.reason, { cause: s.error });
}

/** Whether `error` is NVML's way of saying that a device does not report a figure (or not to this user). */
export function isUnreported(error: unknown): boolean {
  return (
    error instanceof NvmlError &&
    (error.codeName === 'NVML_ERROR_NOT_SUPPORTED' || error.codeName === 'NVML_ERROR_NO_PERMISSION')
  );
}

/** `read()`, or undefined where the device does not report it; other failures throw. */
export function reported<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (isUnreported(error)) return undefined;
    throw error;
  }
}
