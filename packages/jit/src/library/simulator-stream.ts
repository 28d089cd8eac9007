// The simulator's stream (numba's simulator has fake streams too): launches
// and copies run to their end when called, so work on a stream is done in
// program order and every wait is already satisfied.
import {
  ClosedResourceError,
  HostFunctionError,
  STREAM_PROTOCOL,
  type StreamArgument,
  type StreamLike,
  type StreamProtocolResult,
} from '@cuda-js/streams';
import { SimulatorEvent } from './simulator-event.js';
import { checkSimulatorStream, SIMULATOR_STREAM } from '../simulate/simulator-stream-check.js';

/**
 * A stream for programs that run in the simulator: it takes the place of a
 * GPU Stream in launches (`{ stream }`), copies, ufuncs and reductions, and
 * has `record`, `wait`, `synchronize`, `synchronized`, `isDone` and
 * `launchHostFunction` as a Stream has them, with sequential semantics:
 * each operation is done when its call returns. Made by
 * `stream({ target: 'simulator' })`. Its stream protocol answers the default
 * stream's handle (0n), the order the simulator's work has anyway.
 */
export class SimulatorStream implements StreamLike, Disposable {
  readonly #owned: boolean;
  #closed = false;

  /** @internal use `stream({ target: 'simulator' })` or `defaultStream({ target: 'simulator' })`. */
  constructor(owned = true) {
    this.#owned = owned;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #open(what: string): void {
    if (this.#closed) throw new ClosedResourceError(`SimulatorStream (${what})`);
  }

  /** @internal the check a simulated launch or copy makes of its stream. */
  [SIMULATOR_STREAM](what: string): void {
    this.#open(what);
  }

  [STREAM_PROTOCOL](): StreamProtocolResult {
    this.#open('its stream protocol');
    return { version: 0, handle: 0n };
  }

  /** Records an event here (a new one with timing, unless given) and returns it. */
  record(event?: SimulatorEvent): SimulatorEvent {
    this.#open('record');
    return (event ?? new SimulatorEvent(true)).record(this);
  }

  /** Later work waits for an event or another stream: it is done already. */
  wait(eventOrStream: SimulatorEvent | StreamArgument): void {
    this.#open('wait');
    if (eventOrStream instanceof SimulatorEvent) {
      if (eventOrStream.closed) throw new ClosedResourceError('SimulatorEvent (wait)');
      return;
    }
    checkSimulatorStream(eventOrStream, 'SimulatorStream.wait');
  }

  /** Returns at once: the work queued so far is done. */
  synchronize(): void {
    this.#open('synchronize');
  }

  /** Resolves at once (the work queued so far is done). */
  synchronized(): Promise<void> {
    this.#open('synchronized');
    return Promise.resolve();
  }

  /** Runs `fn` now, after the work queued so far (done), and settles with its result, or rejects with a HostFunctionError whose `cause` is what it threw (as on the GPU). */
  launchHostFunction<T>(fn: () => T): Promise<Awaited<T>> {
    this.#open('launchHostFunction');
    let result: T;
    try {
      result = fn();
    } catch (error) {
      return Promise.reject(new HostFunctionError(0n, error));
    }
    return Promise.resolve(result).then(
      (value) => value,
      (error: unknown) => Promise.reject(new HostFunctionError(0n, error)),
    );
  }

  /** Always true: the simulator's work is done when it returns. */
  get isDone(): boolean {
    this.#open('isDone');
    return true;
  }

  /** Ends the stream (the default stream stays open); safe to call twice. */
  close(): void {
    if (this.#owned) this.#closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
