import { isBoolean, isInteger, type OptionTableOf } from '@cuda-js/options';
import { driver, type CUcontext, type CUstream } from '@cuda-js/bindings';
import { brandHandle, OwnedHandle } from '@cuda-js/bindings/runtime';
import { deferredStreams, submitDeferredWork } from './deferred-work.js';
import { Event } from './event.js';
import { checkBlockingWait, launchHostFunction } from './host-function.js';
import { orderStreams } from './order-streams.js';
import { checkStreamOptions } from './stream-option-error.js';
import {
  forgetStreamHandle,
  LEGACY_DEFAULT_STREAM_HANDLE,
  PER_THREAD_DEFAULT_STREAM_HANDLE,
  rememberStreamHandle,
  STREAM_PROTOCOL,
  streamHandle,
  type StreamArgument,
  type StreamLike,
  type StreamProtocolResult,
} from './stream-protocol.js';

export interface StreamOptions {
  /** Does not synchronize with the legacy default stream (default false). */
  readonly nonBlocking?: boolean | undefined;
  /** Lower numbers run first; see `driver.cuCtxGetStreamPriorityRange()`. Default 0. */
  readonly priority?: number | undefined;
}

const STREAM_OPTIONS = { nonBlocking: isBoolean, priority: isInteger } satisfies OptionTableOf<StreamOptions>;

/**
 * A CUDA stream: an ordered queue of GPU work. Implements the stream protocol,
 * so it is accepted wherever a stream is, by cuda-js or by other libraries.
 */
export class Stream implements StreamLike, Disposable {
  readonly #owned: OwnedHandle<CUstream>;
  /** For a wrapped foreign stream: the object that owns it, kept alive with this one. */
  readonly #keepAlive: unknown;

  /** Made by {@link Stream.create} and {@link Stream.from} (called on a subclass, they make one of it: core's `DeviceStream`). */
  protected constructor(
    handle: CUstream,
    release: ((h: CUstream) => void) | undefined,
    keepAlive: unknown,
    description: string,
  ) {
    // An owned stream's handle is known until it is destroyed; a wrapped one's from now on (its owner decides when it ends).
    rememberStreamHandle(handle);
    const forgetting =
      release === undefined
        ? undefined
        : (h: CUstream) => {
            forgetStreamHandle(h);
            release(h);
          };
    this.#owned = new OwnedHandle(handle, this, forgetting, description);
    this.#keepAlive = keepAlive;
  }

  /** Creates a stream in the current context (core's `Device.createStream()` makes one current first). */
  static create(options: StreamOptions = {}): Stream {
    const { nonBlocking = false, priority = 0 } = checkStreamOptions<StreamOptions>(
      'Stream.create',
      options,
      STREAM_OPTIONS,
    );
    const { CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING } = driver.CUstream_flags;
    const handle = driver.cuStreamCreateWithPriority(
      nonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT,
      priority,
    );
    // biome-ignore lint/complexity/noThisInStatic: called on a subclass (core's DeviceStream), it makes one of that class
    const Made = this ?? Stream; // an unbound call (`const { create } = Stream`) makes a Stream
    return new Made(handle, (h) => driver.cuStreamDestroy(h), undefined, 'Stream');
  }

  /**
   * Wraps a stream that something else owns: an object implementing
   * `Symbol.for('cuda.stream')` (kept alive while this wrapper lives), or a raw
   * CUstream handle. `close()` never destroys a wrapped stream.
   *
   * This is the one place a raw bigint handle is taken on trust (the driver
   * cannot check a CUstream): from then on, APIs that take a stream take the
   * bigint too; before, they refuse it with `UnknownStreamHandleError`.
   */
  static from(stream: StreamArgument): Stream {
    // biome-ignore lint/complexity/noThisInStatic: called on a subclass (core's DeviceStream), it makes one of that class
    const Made = this ?? Stream; // an unbound call (`streams.map(Stream.from)`) makes a Stream
    if (stream instanceof Made) return stream;
    const handle = typeof stream === 'bigint' ? brandHandle<CUstream>(stream) : streamHandle(stream, 'Stream.from');
    return new Made(handle, undefined, stream, 'Stream (wrapped)');
  }

  static #legacy: Stream | undefined;
  static #perThread: Stream | undefined;

  /** The legacy default stream (CU_STREAM_LEGACY): synchronizes with every blocking stream. */
  static get legacyDefault(): Stream {
    return (Stream.#legacy ??= new Stream(LEGACY_DEFAULT_STREAM_HANDLE, undefined, undefined, 'legacy default stream'));
  }

  /** The per-thread default stream (CU_STREAM_PER_THREAD). */
  static get perThreadDefault(): Stream {
    return (Stream.#perThread ??= new Stream(
      PER_THREAD_DEFAULT_STREAM_HANDLE,
      undefined,
      undefined,
      'per-thread default stream',
    ));
  }

  /** The CUstream handle; throws after close. */
  get handle(): CUstream {
    const handle = this.#owned.handle;
    if (deferredStreams !== 0) submitDeferredWork(handle);
    return handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** Whether this wraps a stream owned elsewhere. */
  get isWrapped(): boolean {
    return this.#keepAlive !== undefined;
  }

  get priority(): number {
    return driver.cuStreamGetPriority(this.handle);
  }

  get isNonBlocking(): boolean {
    return (driver.cuStreamGetFlags(this.handle) & driver.CUstream_flags.CU_STREAM_NON_BLOCKING) !== 0;
  }

  /** The CUcontext the stream belongs to. */
  get context(): CUcontext {
    return driver.cuStreamGetCtx(this.handle);
  }

  [STREAM_PROTOCOL](): StreamProtocolResult {
    return { version: 0, handle: this.handle };
  }

  /** Records an event here (a new one without timing, unless given) and returns it. */
  record(event?: Event): Event {
    const target = event ?? Event.create();
    return target.record(this);
  }

  /** Makes later work on this stream wait for an event, or for all work so far on another stream. */
  wait(eventOrStream: Event | StreamArgument): void {
    if (eventOrStream instanceof Event) {
      driver.cuStreamWaitEvent(this.handle, eventOrStream.handle, 0);
      return;
    }
    orderStreams(streamHandle(eventOrStream, 'Stream.wait'), this.handle);
  }

  /**
   * Blocks until all work queued so far is done. Refused with
   * `HostFunctionDeadlockError` while a host function of this thread is
   * pending on the stream (it could not run): await {@link synchronized} then.
   */
  synchronize(): void {
    const handle = this.handle;
    checkBlockingWait(handle, 'Stream.synchronize');
    driver.cuStreamSynchronize(handle);
  }

  /** Resolves when all work queued so far is done, without blocking the event loop. */
  synchronized(): Promise<void> {
    return driver.cuStreamSynchronizeAsync(this.handle);
  }

  /**
   * Runs `fn` on this JS thread in stream order: after the work queued so far,
   * and before the work queued later, which waits until `fn` has returned
   * (cuda.core's `host_launch`). The Promise settles once `fn` has run, with
   * its result, or rejected with a `HostFunctionError` whose `cause` is what
   * it threw; the stream goes on either way. See {@link launchHostFunction}.
   */
  launchHostFunction<T>(fn: () => T): Promise<Awaited<T>> {
    return launchHostFunction(this, fn);
  }

  /** Whether all work queued so far is done (never blocks). */
  get isDone(): boolean {
    return driver.cuStreamQuery(this.handle);
  }

  /** Destroys the stream (work already queued still completes); safe to call twice. */
  close(): void {
    this.#owned.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
