// numba's cuda.stream(), cuda.event(), cuda.default_stream() and
// cuda.event_elapsed_time, for both targets: a GPU Stream and Event, or the
// simulator's, so that a program written for the GPU with streams and
// events runs unchanged in the simulator (CUDA_JS_SIMULATOR=1).
import { Device } from '@cuda-js/core';
import { Event, Stream, type StreamArgument, type StreamLike, type StreamOptions } from '@cuda-js/streams';
import { isAnything, isBoolean, isInteger, type OptionTableOf } from '@cuda-js/options';
import { defaultTarget, type JitTarget } from '../jit.js';
import { checkJitOptions, isJitTarget } from '../jit-options.js';
import { SimulatorEvent } from './simulator-event.js';
import { SimulatorStream } from './simulator-stream.js';

/** What a program does with a stream on either target (a GPU Stream and a {@link SimulatorStream} both are one). */
export interface JitStream extends StreamLike, Disposable {
  readonly closed: boolean;
  /** Records an event on the stream (a new one, unless given) and returns it. */
  record(event?: JitEvent): JitEvent;
  /** Makes later work on this stream wait for an event, or for the work so far on another stream. */
  wait(eventOrStream: JitEvent | StreamArgument): void;
  /** Blocks until the work queued so far is done. */
  synchronize(): void;
  /** Resolves when the work queued so far is done. */
  synchronized(): Promise<void>;
  /** Whether the work queued so far is done. */
  readonly isDone: boolean;
  /** Runs `fn` on the host in stream order. */
  launchHostFunction<T>(fn: () => T): Promise<Awaited<T>>;
  close(): void;
}

/** What a program does with an event on either target (a GPU Event and a {@link SimulatorEvent} both are one). */
export interface JitEvent extends Disposable {
  readonly timing: boolean;
  readonly closed: boolean;
  /** Records the event on `stream` (default: the default stream). */
  record(stream?: StreamArgument): this;
  /** Blocks until the work before the event is done. */
  synchronize(): void;
  /** Resolves when the work before the event is done. */
  completed(): Promise<void>;
  readonly isDone: boolean;
  /** Milliseconds from `start` to this event. */
  elapsedTimeSince(start: JitEvent): number;
  close(): void;
}

export interface StreamMakerOptions extends StreamOptions {
  /** `'gpu'` (default; `CUDA_JS_SIMULATOR=1` makes it `'simulator'`): a GPU Stream, or the simulator's. */
  readonly target?: JitTarget | undefined;
  /** The device of a GPU stream (default: the current one, else device 0). */
  readonly device?: Device | undefined;
}

export interface EventMakerOptions {
  /** Record timestamps for `elapsedTimeSince` (default true, as numba's `cuda.event(timing=True)`). */
  readonly timing?: boolean | undefined;
  /** `'gpu'` (default; `CUDA_JS_SIMULATOR=1` makes it `'simulator'`). */
  readonly target?: JitTarget | undefined;
  /** The device of a GPU event (default: the current one, else device 0). */
  readonly device?: Device | undefined;
}

const STREAM_MAKER_OPTIONS = {
  target: isJitTarget,
  device: isAnything,
  nonBlocking: isBoolean,
  priority: isInteger,
} satisfies OptionTableOf<StreamMakerOptions>;
const EVENT_MAKER_OPTIONS = {
  target: isJitTarget,
  device: isAnything,
  timing: isBoolean,
} satisfies OptionTableOf<EventMakerOptions>;
const DEFAULT_STREAM_OPTIONS = { target: isJitTarget };

function deviceOf(device: Device | undefined): Device {
  return device ?? Device.current() ?? Device.get(0);
}

/**
 * A new stream (numba's `cuda.stream()`): on the GPU a Stream of `device`,
 * in the simulator a {@link SimulatorStream}, whose work is done when each
 * call returns. Launches, copies, ufuncs and reductions take either.
 */
export function stream(options: StreamMakerOptions = {}): JitStream {
  checkJitOptions('stream()', options, STREAM_MAKER_OPTIONS);
  const { target, device, ...streamOptions } = options;
  if ((target ?? defaultTarget()) === 'simulator') return new SimulatorStream();
  return deviceOf(device).createStream(streamOptions) as JitStream;
}

let simulatorDefault: SimulatorStream | undefined;

/** The default stream (numba's `cuda.default_stream()`): the legacy default Stream on the GPU; in the simulator one SimulatorStream that `close()` leaves open. */
export function defaultStream(options: { readonly target?: JitTarget | undefined } = {}): JitStream {
  checkJitOptions('defaultStream()', options, DEFAULT_STREAM_OPTIONS);
  if ((options.target ?? defaultTarget()) === 'simulator') return (simulatorDefault ??= new SimulatorStream(false));
  return Stream.legacyDefault as JitStream;
}

/** A new event (numba's `cuda.event(timing=True)`): on the GPU an Event of `device`, in the simulator a {@link SimulatorEvent}. */
export function event(options: EventMakerOptions = {}): JitEvent {
  checkJitOptions('event()', options, EVENT_MAKER_OPTIONS);
  const timing = options.timing ?? true;
  if ((options.target ?? defaultTarget()) === 'simulator') return new SimulatorEvent(timing);
  return deviceOf(options.device).createEvent({ timing }) as JitEvent;
}

/** Milliseconds between two recorded timing events of one target (numba's `cuda.event_elapsed_time(start, end)`). */
export function eventElapsedTime(start: JitEvent, end: JitEvent): number {
  if (start instanceof SimulatorEvent && end instanceof SimulatorEvent) return SimulatorEvent.elapsedTime(start, end);
  if (start instanceof Event && end instanceof Event) return Event.elapsedTime(start, end);
  throw new TypeError('eventElapsedTime: both events must be of one target (two GPU Events or two simulator events)');
}
