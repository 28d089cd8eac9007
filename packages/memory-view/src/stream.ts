import { InvalidStreamError, ProtocolError, StreamOrderError } from './errors.js';
import type { Device } from './device.js';
import { formatValue } from './format-value.js';
import { readStreamHandle, type StreamArgument } from './stream-argument.js';

/**
 * The consumer's stream, as every `from*` constructor and DLPack's
 * `{ stream }` take it: a {@link StreamArgument} (`0n` is the default
 * stream), `-1` / `-1n` to opt out of stream ordering, or `undefined`
 * (allowed for host memory only).
 */
export type ConsumerStream = StreamArgument | -1 | undefined;

/** The "no synchronization" stream value of DLPack. */
export const NO_SYNC = -1n;
/** DLPack's and the CUDA array interface's value for the legacy default stream. */
export const LEGACY_DEFAULT_STREAM = 1n;
/** DLPack's and the CUDA array interface's value for the per-thread default stream. */
export const PER_THREAD_DEFAULT_STREAM = 2n;

// `CUstream` 0 is the per-thread default stream when the stack runs in that mode
// (see docs/bindings-api.md); read once, not on each call.
const DEFAULT_STREAM =
  process.env['CUDA_JS_PER_THREAD_DEFAULT_STREAM'] === '1' ? PER_THREAD_DEFAULT_STREAM : LEGACY_DEFAULT_STREAM;

/** A CUstream handle is a pointer: in [1, 2^64) (or -1n, no synchronization, as DLPack spells it); 2^64 and -5n were taken. */
function checkedHandle(handle: bigint, what: string): bigint {
  if (handle === NO_SYNC || (handle > 0n && handle < 1n << 64n)) return handle;
  throw new InvalidStreamError(
    `${what} must be a CUstream handle in [0, 2^64) or -1 for no synchronization, got ${handle}n`,
  );
}

/**
 * The stream argument as one `bigint`: `-1n` for no synchronization, `1n`/`2n`
 * for the default streams (a handle of `0n` becomes the default stream's value,
 * since DLPack forbids 0), another handle as is; `undefined` when none was given.
 */
export function resolveStream(stream: ConsumerStream): bigint | undefined {
  if (typeof stream === 'bigint') return stream === 0n ? DEFAULT_STREAM : checkedHandle(stream, 'stream');
  if (stream === undefined) return undefined;
  if (stream === -1) return NO_SYNC;
  const handle = readStreamHandle(stream);
  if (typeof handle === 'bigint')
    return handle === 0n ? DEFAULT_STREAM : checkedHandle(handle, "Symbol.for('cuda.stream')'s handle");
  if (handle.fault === 'not-a-stream') {
    throw new TypeError(
      `stream must be an object with Symbol.for('cuda.stream'), a bigint handle, -1 or undefined; got ${typeof stream === 'number' ? stream : typeof stream}`,
    );
  }
  const answer = handle.answer as { version?: unknown } | null;
  if (answer !== null && typeof answer === 'object' && answer.version !== 0) {
    throw new ProtocolError(
      `Symbol.for('cuda.stream') version ${formatValue(answer.version)} is not supported (expected 0)`,
    );
  }
  throw new ProtocolError(
    `Symbol.for('cuda.stream') returned ${formatValue(handle.answer)}; expected { version: 0, handle: bigint }`,
  );
}

/**
 * What this package cannot do itself, having no CUDA driver: make one stream
 * wait for another, and find the device that owns a pointer. `@cuda-js/core`
 * installs these with {@link setDriverHooks}; a library that does not use core
 * may install its own.
 */
export interface DriverHooks {
  /**
   * Makes work submitted to `consumer` from now on wait until the work already
   * submitted to `producer` is done (an event recorded on `producer`, waited on
   * by `consumer`). Both are stream values as {@link resolveStream} gives them.
   */
  waitStream?(producer: bigint, consumer: bigint): void;
  /** The device that owns a device pointer (a CUDA array interface gives none). */
  pointerDevice?(ptr: bigint): Device;
  /**
   * A zero-copy `ArrayBuffer` over host-accessible memory at an address:
   * pinned (`CUDAHost`) or managed (`CUDAManaged`) memory, which a view holds
   * as a `bigint` address. The `byteLength` bytes from `ptr` are at
   * `byteOffset` of the returned buffer (which may hold more). The buffer must
   * keep `keepAlive` (the view that asked) alive for as long as it lives, and
   * the hook must throw where the driver does not vouch for the memory.
   * `exporter` is the view's exporter, for a hook that knows its own objects
   * (core gives its Buffers' own views, whose lifetime the Buffer manages).
   * Called once per view; the view holds the buffer weakly.
   */
  hostBuffer?(
    ptr: bigint,
    byteLength: number,
    exporter: unknown,
    keepAlive: object,
  ): { readonly buffer: ArrayBuffer; readonly byteOffset: number };
}

let hooks: DriverHooks = {};

/** Installs the driver hooks (see {@link DriverHooks}); returns the previous ones, so that a caller can restore them. */
export function setDriverHooks(next: DriverHooks): DriverHooks {
  const previous = hooks;
  hooks = { ...next };
  return previous;
}

/** The installed driver hooks. */
export function driverHooks(): Readonly<DriverHooks> {
  return hooks;
}

/** Shorthand for `setDriverHooks({ ...driverHooks(), waitStream })`. */
export function setStreamWaiter(waitStream: DriverHooks['waitStream']): void {
  setDriverHooks({ ...hooks, waitStream });
}

function hex(s: bigint): string {
  return s === LEGACY_DEFAULT_STREAM
    ? 'the legacy default stream'
    : s === PER_THREAD_DEFAULT_STREAM
      ? 'the per-thread default stream'
      : `0x${s.toString(16)}`;
}

/**
 * Orders `consumer` after `producer` (the CUDA array interface rule): nothing
 * when either is absent, when the consumer opted out (`-1n`) or when both are
 * the same stream; otherwise the registered waiter, or {@link StreamOrderError}.
 */
export function orderStreams(producer: bigint | undefined, consumer: bigint | undefined, what: string): void {
  if (producer === undefined || consumer === undefined || consumer === NO_SYNC || producer === consumer) return;
  const wait = hooks.waitStream;
  if (wait === undefined) {
    throw new StreamOrderError(
      `${what} is ordered on stream ${hex(producer)} and the consumer uses ${hex(consumer)}; making one wait for the other needs the CUDA driver, ` +
        'which @cuda-js/memory-view does not load: import @cuda-js/core (it registers a stream waiter), call setDriverHooks({ waitStream }), ' +
        'or pass { stream: -1 } and synchronize yourself',
    );
  }
  wait(producer, consumer);
}
