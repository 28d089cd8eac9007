/** A CUDA object used after `close()`. */
export class ClosedResourceError extends Error {
  override readonly name = 'ClosedResourceError';
  constructor(readonly resource: string) {
    super(`${resource} is closed`);
  }
}

/**
 * Releases a handle exactly once: at `close()`, or from a FinalizationRegistry
 * when its owner is collected unclosed. Errors from a release in the finalizer
 * are swallowed (the context may be gone by then).
 */
export class OwnedHandle {
  static readonly #registry = new FinalizationRegistry<{ release: () => void }>((held) => {
    try {
      held.release();
    } catch {
      // nothing to report to at collection time
    }
  });

  #handle: bigint;
  #released = false;
  readonly #token: { release: () => void };

  constructor(
    handle: bigint,
    owner: object,
    release: ((handle: bigint) => void) | undefined,
    readonly description: string,
  ) {
    this.#handle = handle;
    const token = { release: () => (release ? release(handle) : undefined) };
    this.#token = token;
    if (release) OwnedHandle.#registry.register(owner, token, token);
  }

  get closed(): boolean {
    return this.#released;
  }

  /** The handle; throws ClosedResourceError after close. */
  get handle(): bigint {
    if (this.#released) throw new ClosedResourceError(this.description);
    return this.#handle;
  }

  /** Releases now; safe to call twice. */
  close(): void {
    if (this.#released) return;
    this.#released = true;
    OwnedHandle.#registry.unregister(this.#token);
    this.#token.release();
  }
}
