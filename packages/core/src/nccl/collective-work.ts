import type { Event } from '@cuda-js/streams';
import { CommunicatorStateError } from '../errors.js';

/**
 * The completion of collective calls, awaitable: `await comm.allReduce(...)`
 * resolves once the device has finished the call (an event recorded on its
 * stream right after it; a group records one per stream at its end). Awaiting
 * never blocks the event loop; nothing is waited for unless asked, so a work
 * left unawaited costs nothing (the stream orders later work anyway). For
 * ordering on another stream, `otherStream.wait(work.events[0])`.
 */
export class CollectiveWork implements PromiseLike<void> {
  #events: readonly Event[] | undefined;
  #failure: { readonly error: unknown } | undefined;
  /** The memory arguments, kept reachable with this work. */
  readonly #sources: object[];

  /** @internal Works come from a Communicator's calls and `Communicator.group`. */
  constructor(sources: object[], events?: readonly Event[]) {
    this.#sources = sources;
    this.#events = events;
  }

  /** @internal Settles a work of a group at the group's end. */
  _complete(events: readonly Event[], sources: readonly object[] = []): void {
    this.#events = events;
    this.#sources.push(...sources);
  }

  /** @internal Marks a work of a group whose function threw: awaiting it rejects with that error. */
  _fail(error: unknown): void {
    this.#failure = { error };
    this.#events = [];
  }

  #recorded(what: string): readonly Event[] {
    if (this.#failure) throw this.#failure.error;
    if (this.#events === undefined)
      throw new CommunicatorStateError(
        `${what}: this call is part of a Communicator.group() that has not ended; NCCL issues it at the group's end: await the group's result instead`,
      );
    return this.#events;
  }

  /** The events recorded after the work (one per stream it ran on). */
  get events(): readonly Event[] {
    return this.#recorded('CollectiveWork.events');
  }

  /** Whether the device has finished the work (never blocks; false while its group has not ended). */
  get isDone(): boolean {
    if (this.#failure) return true;
    return this.#events?.every((e) => e.isDone) ?? false;
  }

  /** Blocks until the device has finished the work; {@link completed} does not block. */
  synchronize(): void {
    for (const event of this.#recorded('CollectiveWork.synchronize')) event.synchronize();
  }

  /** Resolves once the device has finished the work, without blocking the event loop. */
  completed(): Promise<void> {
    try {
      const events = this.#recorded('CollectiveWork.completed');
      return Promise.all(events.map((e) => e.completed())).then(() => {
        this.#sources.length = 0; // done: the memory no longer needs holding
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  then<R1 = void, R2 = never>(
    // biome-ignore lint/suspicious/noConfusingVoidType: the signature of PromiseLike<void>'s then
    onFulfilled?: ((value: void) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.completed().then(onFulfilled, onRejected);
  }
}
