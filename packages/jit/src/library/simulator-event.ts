// The simulator's event (numba's simulator has fake events too): the
// simulator runs each launch and copy to its end when it is called, so an
// event is complete once recorded, and its time is the host's clock then.
import { ClosedResourceError, type StreamArgument } from '@cuda-js/streams';
import { checkSimulatorStream } from '../simulate/simulator-stream-check.js';

/**
 * An event for programs that run in the simulator: `record(stream)`,
 * `synchronize()`, `completed()`, `isDone` and `elapsedTimeSince(start)`
 * as a GPU Event has them. Work is sequential there, so an event is done
 * when it is recorded; its time is the host's clock (`performance.now()`) then.
 * Made by `event({ target: 'simulator' })`.
 */
export class SimulatorEvent implements Disposable {
  /** Whether this event records timing. */
  readonly timing: boolean;
  #time: number | undefined;
  #closed = false;

  /** @internal use `event({ target: 'simulator' })`. */
  constructor(timing: boolean) {
    this.timing = timing;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #open(what: string): void {
    if (this.#closed) throw new ClosedResourceError(`SimulatorEvent (${what})`);
  }

  /** Records the event on `stream` (default: the default stream): the work before it is done already. */
  record(stream: StreamArgument = 0n): this {
    this.#open('record');
    checkSimulatorStream(stream, 'SimulatorEvent.record');
    this.#time = performance.now();
    return this;
  }

  /** Returns at once: the work before the event is done. */
  synchronize(): void {
    this.#open('synchronize');
  }

  /** Resolves at once (the work before the event is done). */
  completed(): Promise<void> {
    this.#open('completed');
    return Promise.resolve();
  }

  /** Always true: the simulator's work is done when it returns. */
  get isDone(): boolean {
    this.#open('isDone');
    return true;
  }

  /** Milliseconds from `start` to this event; both must record timing and have been recorded. */
  elapsedTimeSince(start: SimulatorEvent): number {
    return SimulatorEvent.elapsedTime(start, this);
  }

  /** Milliseconds between two timing events that have been recorded. */
  static elapsedTime(start: SimulatorEvent, end: SimulatorEvent): number {
    if (!(start instanceof SimulatorEvent) || !(end instanceof SimulatorEvent))
      throw new TypeError(
        'SimulatorEvent.elapsedTime: both events must be simulator events (event({ target: "simulator" }))',
      );
    start.#open('elapsedTime');
    end.#open('elapsedTime');
    if (!start.timing || !end.timing)
      throw new RangeError('Event.elapsedTime: both events must be created with { timing: true }');
    if (start.#time === undefined || end.#time === undefined)
      throw new RangeError(
        `Event.elapsedTime: the ${start.#time === undefined ? 'start' : 'end'} event has not been recorded`,
      );
    return end.#time - start.#time;
  }

  /** Safe to call twice. */
  close(): void {
    this.#closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
