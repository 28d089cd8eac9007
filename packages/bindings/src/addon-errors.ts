/**
 * The bindings' own native addon could not be used: it was found but did not
 * load (a missing system library, another libc, a file of another machine).
 * Thrown by the first call into the driver, NVRTC, nvJitLink or libNVVM, not
 * by the import, so that what needs no addon (enums, pathfinder's report,
 * the JIT's simulator) keeps working.
 */
export class AddonLoadError extends Error {
  override readonly name: string = 'AddonLoadError';
  /** The places the addon was looked for, in order. */
  readonly searched: readonly string[];
  /** The file that was found and failed to load, if one was found. */
  readonly path: string | undefined;

  constructor(message: string, searched: readonly string[], path: string | undefined, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.searched = searched;
    this.path = path;
  }
}

/**
 * No build of the bindings' native addon fits this machine: no prebuild for
 * its platform and architecture in the package, and no source build.
 * `searched` lists where it was looked for; the message says how to build it.
 */
export class AddonNotFoundError extends AddonLoadError {
  override readonly name: string = 'AddonNotFoundError';
}
