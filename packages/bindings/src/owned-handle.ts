/**
 * A CUDA object used after `close()`: the one "closed" error of every package
 * of the stack (streams, program, core, jit).
 */
export class ClosedResourceError extends Error {
  override readonly name: string = 'ClosedResourceError';
  constructor(
    /** What was closed, as messages name it (`Buffer`, `ObjectCode 'saxpy'`). */
    readonly resource: string,
  ) {
    super(`${resource} is closed`);
  }
}

/**
 * How an {@link OwnedHandle} gives its handle back: one function for both
 * `close()` and collection, or two, where a finalizer must not do what a
 * close may (wait for the device on the event loop, say: `whenCollected`
 * then queues the release with `releaseInBackground`).
 */
export type HandleRelease<H extends bigint> =
  | ((handle: H) => void)
  | {
      /** Run by `close()`; its errors reach the caller. */
      readonly atClose: (handle: H) => void;
      /** Run when the owner (or the object given to `releaseWhenCollected`) is collected unclosed; its errors are swallowed. */
      readonly whenCollected: (handle: H) => void;
    };

interface FinalizerToken {
  release(): void;
}

/**
 * Releases a handle exactly once: at `close()`, or from a FinalizationRegistry
 * when its owner is collected unclosed. Errors from a release in the finalizer
 * are swallowed (the context may be gone by then). Generic over the branded
 * handle type: `OwnedHandle<CUevent>` gives back a `CUevent`. Without a
 * release it only tracks `closed` (a handle that something else owns).
 */
export class OwnedHandle<H extends bigint> {
  static readonly #registry = new FinalizationRegistry<FinalizerToken>((token) => {
    try {
      token.release();
    } catch {
      // nothing to report to at collection time
    }
  });

  readonly #handle: H;
  readonly #atClose: ((handle: H) => void) | undefined;
  #released = false;
  readonly #token: FinalizerToken | undefined;

  constructor(
    handle: H,
    owner: object,
    release: HandleRelease<H> | undefined,
    /** What the handle is, for the ClosedResourceError after close. */
    readonly description: string,
  ) {
    this.#handle = handle;
    if (release === undefined) return;
    const whenCollected = typeof release === 'function' ? release : release.whenCollected;
    this.#atClose = typeof release === 'function' ? release : release.atClose;
    // the token must not reference the owner, or the owner would never be collected
    const token: FinalizerToken = { release: () => whenCollected(handle) };
    this.#token = token;
    OwnedHandle.#registry.register(owner, token, token);
  }

  /** Whether close (or take) has run. */
  get closed(): boolean {
    return this.#released;
  }

  /** The handle; throws ClosedResourceError after close. */
  get handle(): H {
    if (this.#released) throw new ClosedResourceError(this.description);
    return this.#handle;
  }

  /** Releases now (the `atClose` release); safe to call twice. */
  close(): void {
    const handle = this.take();
    if (handle !== undefined) this.#atClose?.(handle);
  }

  /**
   * Closes without releasing, and cancels the finalizer: the caller now owns
   * the handle and releases it itself (a stream-ordered free on a stream of
   * its choosing, a release as a Promise). `undefined` when already closed.
   */
  take(): H | undefined {
    if (this.#released) return undefined;
    this.#released = true;
    if (this.#token) OwnedHandle.#registry.unregister(this.#token);
    return this.#handle;
  }

  /**
   * Closed now, released later: the release is left to the finalizer (of the
   * owner, or of the object last given to {@link releaseWhenCollected}).
   * For memory that views still reference. Nothing when already closed.
   */
  closeWhenCollected(): void {
    this.#released = true;
  }

  /**
   * Moves the finalizer's release from the owner to `keeper`: the handle is
   * then released when `keeper` is collected, even after the owner (an object
   * that host views of the memory reference). Nothing once closed, or without
   * a release.
   */
  releaseWhenCollected(keeper: object): void {
    if (this.#released || this.#token === undefined) return;
    OwnedHandle.#registry.unregister(this.#token);
    OwnedHandle.#registry.register(keeper, this.#token, this.#token);
  }
}
