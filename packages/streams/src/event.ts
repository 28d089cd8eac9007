import { driver } from '@cuda-js/bindings';
import { checkEventWait, hostFunctionMark, type HostFunctionMark } from './host-function.js';
import { OwnedHandle } from './owned-handle.js';
import { streamHandle, type StreamArgument } from './stream-protocol.js';

// CUevent_flags of cuda.h
const CU_EVENT_BLOCKING_SYNC = 0x1;
const CU_EVENT_DISABLE_TIMING = 0x2;
const CU_EVENT_INTERPROCESS = 0x4;

export interface EventOptions {
  /** Record timestamps, so that `elapsedTime` works (default false: cheaper, as in cuda.core). */
  readonly timing?: boolean;
  /** The host thread sleeps in `synchronize()` instead of spinning (default false). */
  readonly blockingSync?: boolean;
  /** Shareable with other processes (needs `timing: false`). */
  readonly interprocess?: boolean;
}

const EVENT_OPTION_KEYS = new Set(['timing', 'blockingSync', 'interprocess']);

/** Options accepted by Event.create, checked: an unknown key is a TypeError, not ignored. */
function eventFlags(options: EventOptions): number {
  for (const key of Object.keys(options)) if (!EVENT_OPTION_KEYS.has(key)) throw new TypeError(`Event.create: unknown option '${key}' (known: ${[...EVENT_OPTION_KEYS].join(', ')})`);
  if (options.interprocess && options.timing) throw new RangeError('Event.create: an interprocess event cannot record timing (set timing: false)');
  let flags = 0;
  if (!options.timing) flags |= CU_EVENT_DISABLE_TIMING;
  if (options.blockingSync) flags |= CU_EVENT_BLOCKING_SYNC;
  if (options.interprocess) flags |= CU_EVENT_INTERPROCESS;
  return flags;
}

/** A CUDA event: a point in a stream's work that the host or other streams can wait for. */
export class Event implements Disposable {
  readonly #owned: OwnedHandle;
  /** Whether this event records timing. */
  readonly timing: boolean;
  /** Where the last record() stands among the host functions of its stream (for synchronize()'s deadlock check). */
  #mark: HostFunctionMark | undefined;

  private constructor(handle: bigint, timing: boolean, owned: boolean) {
    this.timing = timing;
    this.#owned = new OwnedHandle(handle, this, owned ? (h) => driver.cuEventDestroy(h as never) : undefined, 'Event');
  }

  /** Creates an event in the current context. */
  static create(options: EventOptions = {}): Event {
    const handle = driver.cuEventCreate(eventFlags(options)) as bigint;
    return new Event(handle, Boolean(options.timing), true);
  }

  /** Wraps a CUevent that something else owns; `close()` does not destroy it. */
  static fromHandle(handle: bigint, options: { timing?: boolean } = {}): Event {
    if (typeof handle !== 'bigint') throw new TypeError('Event.fromHandle: handle must be a bigint CUevent');
    return new Event(handle, Boolean(options.timing), false);
  }

  get handle(): bigint {
    return this.#owned.handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** Records the event on `stream` (default: the legacy default stream). */
  record(stream: StreamArgument = 0n): this {
    const handle = streamHandle(stream);
    driver.cuEventRecord(this.handle as never, handle as never);
    this.#mark = hostFunctionMark(handle);
    return this;
  }

  /**
   * Blocks until the work before the event is done. Refused with
   * `HostFunctionDeadlockError` where that work includes a host function of
   * this thread that has not run (it could not): await {@link completed} then.
   */
  synchronize(): void {
    const handle = this.handle;
    checkEventWait(this.#mark, 'Event.synchronize');
    driver.cuEventSynchronize(handle as never);
  }

  /** Resolves when the work before the event is done, without blocking the event loop. */
  completed(): Promise<void> {
    return driver.cuEventSynchronizeAsync(this.handle as never);
  }

  /** Whether the work before the event is done (never blocks). */
  get isDone(): boolean {
    return driver.cuEventQuery(this.handle as never);
  }

  /** Milliseconds from `start` to this event; both must record timing and be complete. */
  elapsedTimeSince(start: Event): number {
    return Event.elapsedTime(start, this);
  }

  /** Milliseconds between two timing events. */
  static elapsedTime(start: Event, end: Event): number {
    if (!start.timing || !end.timing) throw new RangeError('Event.elapsedTime: both events must be created with { timing: true }');
    return driver.cuEventElapsedTime(start.handle as never, end.handle as never);
  }

  close(): void {
    this.#owned.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
