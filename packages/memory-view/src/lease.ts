/**
 * What a family of views (one import and every view derived from it) holds:
 * the producer's deleter, run exactly once: on `close()` (deferred while
 * exports of the family are out), or when the whole family is garbage, whichever
 * comes first.
 */
// Not the bindings' OwnedHandle: memory-view depends on nothing, and a lease is a reference count over a family, not one owner.

function runReleaser(release: () => void): void {
  try {
    release();
  } catch (error) {
    // A throwing deleter must not take the process down from a GC callback.
    process.emitWarning(`a DLPack deleter threw: ${(error as Error)?.message ?? String(error)}`, 'MemoryViewWarning');
  }
}

const registry = new FinalizationRegistry<() => void>(runReleaser);

/** @internal */
export class Lease {
  closed = false;
  private refs = 0;
  private release: (() => void) | undefined;

  /**
   * @param release the producer's deleter
   * @param whenCollected also run it when the family is collected (false where
   *   something else owns the memory's lifetime, such as an external ArrayBuffer)
   */
  constructor(release?: () => void, whenCollected = true) {
    if (release !== undefined) {
      this.release = release;
      // The held value is the releaser alone: it must not reach the lease or a view.
      if (whenCollected) registry.register(this, release, this);
    }
  }

  /** Marks the family closed; the releaser runs now, or when the last export is given back. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.refs === 0) this.runNow();
  }

  /** An export of the family is out: keep the memory until {@link unretain}. */
  retain(): void {
    this.refs++;
  }

  unretain(): void {
    this.refs--;
    if (this.refs === 0 && this.closed) this.runNow();
  }

  /** Whether the releaser has run. */
  get released(): boolean {
    return this.closed && this.refs === 0;
  }

  private runNow(): void {
    const release = this.release;
    if (release === undefined) return;
    this.release = undefined;
    registry.unregister(this);
    // On an explicit close a throwing deleter reaches the caller.
    release();
  }
}
