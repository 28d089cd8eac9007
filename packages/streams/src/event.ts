import { isBoolean, type OptionTableOf } from '@cuda-js/options';
import { driver, type CUevent } from '@cuda-js/bindings';
import { brandHandle, OwnedHandle } from '@cuda-js/bindings/runtime';
import { checkEventWait, hostFunctionMark, type HostFunctionMark } from './host-function.js';
import { IpcError } from './ipc-error.js';
import { exportIpcEvent, ipcEventHandleBytes, type IpcEventDescriptor } from './ipc-event-descriptor.js';
import { streamHandle, type StreamArgument } from './stream-protocol.js';
import { checkStreamOptions } from './stream-option-error.js';

export interface EventOptions {
  /** Record timestamps, so that `elapsedTime` works (default false: cheaper, as in cuda.core). */
  readonly timing?: boolean | undefined;
  /** The host thread sleeps in `synchronize()` instead of spinning (default false). */
  readonly blockingSync?: boolean | undefined;
  /** Shareable with other processes (needs `timing: false`). */
  readonly interprocess?: boolean | undefined;
}

const EVENT_OPTIONS = {
  timing: isBoolean,
  blockingSync: isBoolean,
  interprocess: isBoolean,
} satisfies OptionTableOf<EventOptions>;

/** The flags of Event.create's options, checked (an unknown key or a wrong value is a StreamOptionError, not ignored, by create). */
function eventFlags(options: Readonly<EventOptions>): number {
  if (options.interprocess && options.timing)
    throw new RangeError('Event.create: an interprocess event cannot record timing (set timing: false)');
  const { CU_EVENT_DEFAULT, CU_EVENT_DISABLE_TIMING, CU_EVENT_BLOCKING_SYNC, CU_EVENT_INTERPROCESS } =
    driver.CUevent_flags;
  let flags: number = CU_EVENT_DEFAULT;
  if (!options.timing) flags |= CU_EVENT_DISABLE_TIMING;
  if (options.blockingSync) flags |= CU_EVENT_BLOCKING_SYNC;
  if (options.interprocess) flags |= CU_EVENT_INTERPROCESS;
  return flags;
}

/** A CUDA event: a point in a stream's work that the host or other streams can wait for. */
export class Event implements Disposable {
  readonly #owned: OwnedHandle<CUevent>;
  /** Whether this event records timing. */
  readonly timing: boolean;
  /** Whether other processes can open this event ({@link ipcDescriptor}): made with `interprocess: true`, or opened from a descriptor. */
  readonly isInterprocess: boolean;
  /** Where the last record() stands among the host functions of its stream (for synchronize()'s deadlock check). */
  #mark: HostFunctionMark | undefined;

  private constructor(handle: CUevent, timing: boolean, owned: boolean, interprocess = false) {
    this.timing = timing;
    this.isInterprocess = interprocess;
    this.#owned = new OwnedHandle(handle, this, owned ? (h) => driver.cuEventDestroy(h) : undefined, 'Event');
  }

  /** Creates an event in the current context. */
  static create(options: EventOptions = {}): Event {
    // the values checked, each read once: later reads are of this copy
    options = checkStreamOptions<EventOptions>('Event.create', options, EVENT_OPTIONS);
    const handle = driver.cuEventCreate(eventFlags(options));
    return new Event(handle, Boolean(options.timing), true, Boolean(options.interprocess));
  }

  /**
   * Opens, in the current context, an interprocess event of another process
   * from its {@link ipcDescriptor} (cuIpcOpenEventHandle). The descriptor is
   * checked strictly first (an `IpcError`). The event records no timing;
   * `record`, `synchronize` and streams' `wait` work on it as on the other
   * process's. `close()` releases this process's copy (cuEventDestroy, as the
   * driver asks); the event itself lives in the process that made it: use the
   * copy only while that one has not destroyed it.
   */
  static fromIpcDescriptor(descriptor: IpcEventDescriptor): Event {
    const bytes = ipcEventHandleBytes(descriptor);
    return new Event(driver.cuIpcOpenEventHandle({ reserved: bytes }), false, true, true);
  }

  /** Wraps a CUevent that something else owns; `close()` does not destroy it. */
  static fromHandle(handle: bigint, options: { timing?: boolean | undefined } = {}): Event {
    if (typeof handle !== 'bigint') throw new TypeError('Event.fromHandle: handle must be a bigint CUevent');
    const { timing } = checkStreamOptions<{ timing?: boolean }>('Event.fromHandle', options, { timing: isBoolean });
    return new Event(brandHandle<CUevent>(handle), Boolean(timing), false);
  }

  get handle(): CUevent {
    return this.#owned.handle;
  }

  /**
   * A plain, JSON-serializable descriptor of this interprocess event
   * (cuIpcGetEventHandle) that another process opens with
   * {@link Event.fromIpcDescriptor}, sent by `process.send`, `postMessage` or
   * any channel. Only for events made with `interprocess: true` (an
   * `IpcError` otherwise).
   */
  ipcDescriptor(): IpcEventDescriptor {
    if (!this.isInterprocess)
      throw new IpcError(
        'Event.ipcDescriptor: the event was not made with { interprocess: true }, so other processes cannot open it',
      );
    return exportIpcEvent(this.handle);
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** Records the event on `stream` (default: the legacy default stream). */
  record(stream: StreamArgument = 0n): this {
    const handle = streamHandle(stream);
    driver.cuEventRecord(this.handle, handle);
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
    driver.cuEventSynchronize(handle);
  }

  /** Resolves when the work before the event is done, without blocking the event loop. */
  completed(): Promise<void> {
    return driver.cuEventSynchronizeAsync(this.handle);
  }

  /** Whether the work before the event is done (never blocks). */
  get isDone(): boolean {
    return driver.cuEventQuery(this.handle);
  }

  /** Milliseconds from `start` to this event; both must record timing and be complete. */
  elapsedTimeSince(start: Event): number {
    return Event.elapsedTime(start, this);
  }

  /** Milliseconds between two timing events. */
  static elapsedTime(start: Event, end: Event): number {
    if (!start.timing || !end.timing)
      throw new RangeError('Event.elapsedTime: both events must be created with { timing: true }');
    return driver.cuEventElapsedTime(start.handle, end.handle);
  }

  close(): void {
    this.#owned.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
