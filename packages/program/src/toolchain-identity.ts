import { checkProgramOptions, isBoolean } from './option-validation.js';
import { cacheKey, type KeyPart } from './cache-key.js';
import { libdevice } from './libdevice.js';
import { chooseLinker } from './linker-backend.js';
import { nvvmToolchain } from './toolchain.js';

let libdeviceDigestCached: string | undefined;

/** A digest of libdevice's bytes (read once), for cache keys. */
export function libdeviceDigest(): string {
  libdeviceDigestCached ??= cacheKey(libdevice().bytes);
  return libdeviceDigestCached;
}

/** The linker that a link step would use, for cache keys. */
export function linkerIdentity(): KeyPart {
  const choice = chooseLinker();
  return { backend: choice.backend, version: choice.toolchain.version, path: choice.toolchain.path ?? null };
}

/** What an NVVM IR compile depends on besides the IR and the options. */
export interface ToolchainIdentity {
  /** libNVVM as loaded: API version, IR version, file. */
  readonly nvvm: { readonly version: string; readonly details: string; readonly path: string | null };
  /** A digest of libdevice, when asked for. */
  readonly libdevice: string | null;
  /** The linker a cubin link would use, when asked for and one is usable. */
  readonly linker: KeyPart;
  /** A SHA-256 (hex) of all of the above: one string for a cache key. */
  readonly key: string;
}

/** Options of {@link toolchainIdentity}. */
export interface ToolchainIdentityOptions {
  /** Include libdevice (for programs compiled with `useLibdevice`). Default true. */
  readonly libdevice?: boolean | undefined;
  /** Include the linker (for programs compiled to cubin). Default false. */
  readonly linker?: boolean | undefined;
}

/**
 * The identity of the tools that compile NVVM IR here, for the cache keys of
 * code generators that keep their own caches (the JIT's disk cache): a
 * different libNVVM, libdevice or linker gives a different `key`. The same
 * facts go into {@link Program}'s own compile-cache keys.
 *
 * @throws LibraryNotFoundError where there is no libNVVM (or, when asked for, no libdevice)
 */
export function toolchainIdentity(options: ToolchainIdentityOptions = {}): ToolchainIdentity {
  options = checkProgramOptions<ToolchainIdentityOptions>('toolchainIdentity', options, {
    libdevice: isBoolean,
    linker: isBoolean,
  });
  const nvvm = nvvmToolchain();
  const nvvmPart = { version: nvvm.version, details: nvvm.details, path: nvvm.path ?? null };
  const lib = options.libdevice === false ? null : libdeviceDigest();
  let linker: KeyPart = null;
  if (options.linker === true) {
    try {
      linker = linkerIdentity();
    } catch {
      // No linker here: nothing can be linked, so no cubin can be keyed by one.
      linker = null;
    }
  }
  const parts = { nvvm: nvvmPart, libdevice: lib, linker };
  return Object.freeze({ ...parts, key: cacheKey(parts) });
}
