import { launchBlockingHostFunc, perThreadDefaultStream } from '@cuda-js/bindings';
import { HostFunctionDeadlockError, HostFunctionError } from './host-function-errors.js';
import {
  LEGACY_DEFAULT_STREAM_HANDLE,
  PER_THREAD_DEFAULT_STREAM_HANDLE,
  streamHandle,
  type StreamArgument,
} from './stream-protocol.js';

/**
 * JS functions run in stream order (cuda.core's `host_launch`), and the
 * bookkeeping that keeps this thread from blocking on a stream that waits for
 * one of them. Per JS thread (module state), as the functions run on the
 * thread that launched them.
 */

/** Host functions launched and completed on one stream, in launch order (a stream runs them one after another). */
interface Ledger {
  launched: number;
  completed: number;
}

const ledgers = new Map<bigint, Ledger>();
let pendingTotal = 0;

/** The stream that a handle names: `0n` is the legacy default stream, or the per-thread one in that mode. */
function keyOf(handle: bigint): bigint {
  if (handle !== 0n) return handle;
  return perThreadDefaultStream() ? PER_THREAD_DEFAULT_STREAM_HANDLE : LEGACY_DEFAULT_STREAM_HANDLE;
}

function ledgerOf(key: bigint): Ledger {
  let ledger = ledgers.get(key);
  if (ledger === undefined) ledgers.set(key, (ledger = { launched: 0, completed: 0 }));
  return ledger;
}

function pendingOn(key: bigint): number {
  const ledger = ledgers.get(key);
  return ledger === undefined ? 0 : ledger.launched - ledger.completed;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs `fn` on this JS thread in `stream`'s order: once the work queued on
 * the stream before this call is done, and the stream's later work waits
 * until `fn` has returned (cuda.core's `host_launch`). Returns at once; the
 * Promise settles when `fn` has run: with what it returned, or rejected with
 * a {@link HostFunctionError} whose `cause` is what it threw. The stream goes
 * on in both cases. A failure is never lost: a Promise left unawaited rejects
 * unhandled, which Node.js reports (by default it ends the process).
 *
 * The stream waits for `fn`'s return only: a Promise that `fn` returns is
 * followed by the returned Promise, but not by the stream.
 *
 * While `fn` is pending, a blocking wait of this thread on the stream would
 * never return (the stream waits for JS, JS for the stream): the waits of
 * this package and of `@cuda-js/core` that would do so throw
 * {@link HostFunctionDeadlockError} instead; `await stream.synchronized()`.
 * `fn` may enqueue more work but must not block on its own stream either.
 */
export function launchHostFunction<T>(stream: StreamArgument, fn: () => T): Promise<Awaited<T>> {
  if (typeof fn !== 'function')
    throw new TypeError(`launchHostFunction: fn must be a function, got ${fn === null ? 'null' : typeof fn}`);
  const handle = streamHandle(stream, 'launchHostFunction');
  const ledger = ledgerOf(keyOf(handle));
  let resolve!: (value: Awaited<T>) => void;
  let reject!: (error: HostFunctionError) => void;
  const settled = new Promise<Awaited<T>>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const run = (): void => {
    let result: T;
    try {
      result = fn();
    } catch (error) {
      ledger.completed++;
      pendingTotal--;
      reject(new HostFunctionError(handle, error));
      return;
    }
    ledger.completed++;
    pendingTotal--;
    if (isThenable(result)) {
      Promise.resolve(result).then(resolve as (value: unknown) => void, (error: unknown) =>
        reject(new HostFunctionError(handle, error)),
      );
    } else {
      resolve(result as Awaited<T>);
    }
  };
  launchBlockingHostFunc(handle, run);
  // counted once the driver took it: it runs on this thread, so not before this returns
  ledger.launched++;
  pendingTotal++;
  return settled;
}

/** How many host functions launched from this thread have not run yet: on `stream`, or on any stream. */
export function pendingHostFunctions(stream?: StreamArgument): number {
  if (stream === undefined) return pendingTotal;
  return pendingOn(keyOf(streamHandle(stream, 'pendingHostFunctions')));
}

function refuse(what: string, detail: string): never {
  throw new HostFunctionDeadlockError(
    `${what} would never return: ${detail}, which runs on this JS thread once it is free. Await instead (stream.synchronized(), event.completed(), closeAsync())`,
  );
}

/**
 * Throws {@link HostFunctionDeadlockError} where blocking this thread until
 * `stream`'s queued work is done would wait for a pending host function of
 * this thread: one on that stream, or, for the legacy default stream (which
 * waits for every blocking stream), on any stream; the legacy default
 * stream's own pending functions count for every stream. `'context'` stands
 * for a wait of the whole context (`cuCtxSynchronize`, `cuMemFreeHost`).
 * For libraries that block on streams, as `@cuda-js/core` does.
 */
export function checkBlockingWait(stream: StreamArgument | 'context', what: string): void {
  if (pendingTotal === 0) return;
  if (stream === 'context')
    refuse(what, `${pendingTotal} host function(s) launched from this thread are still pending`);
  const key = keyOf(streamHandle(stream, what));
  if (key === LEGACY_DEFAULT_STREAM_HANDLE)
    refuse(
      what,
      `the legacy default stream waits for every blocking stream, and ${pendingTotal} host function(s) are pending`,
    );
  const own = pendingOn(key);
  if (own > 0) refuse(what, `${own} host function(s) are pending on stream 0x${key.toString(16)}`);
  const legacy = pendingOn(LEGACY_DEFAULT_STREAM_HANDLE);
  if (legacy > 0) refuse(what, `${legacy} host function(s) are pending on the legacy default stream`);
}

/** Where an event recorded now on `stream` stands among its host functions: for {@link checkEventWait}. */
export interface HostFunctionMark {
  readonly stream: bigint;
  readonly launched: number;
}

/** @internal The mark of an event recorded on `handle` now (undefined where no host function was ever launched there). */
export function hostFunctionMark(handle: bigint): HostFunctionMark | undefined {
  const key = keyOf(handle);
  const ledger = ledgers.get(key);
  return ledger === undefined || ledger.launched === 0 ? undefined : { stream: key, launched: ledger.launched };
}

/** @internal Throws {@link HostFunctionDeadlockError} where an event of this mark waits for a host function that has not run. */
export function checkEventWait(mark: HostFunctionMark | undefined, what: string): void {
  if (mark === undefined) return;
  const ledger = ledgers.get(mark.stream)!;
  if (ledger.completed < mark.launched)
    refuse(
      what,
      `the event was recorded after ${mark.launched - ledger.completed} host function(s) that are still pending on stream 0x${mark.stream.toString(16)}`,
    );
}
