import { driver, type LaunchFunction, type PackedLaunch } from '@cuda-js/bindings';
import { LAUNCH_QUEUE_RECORD } from '@cuda-js/bindings/runtime';
import { deferStreamWork, Stream, streamHandle, type StreamArgument } from '@cuda-js/streams';
import { ensureDriver } from '../context/driver-init.js';
import { LaunchBatchError, LaunchConfigError } from '../errors.js';
import type { KernelArgument } from './kernel-parameters.js';
import { planFor } from './kernel-plans.js';
import type { LaunchConfig, LaunchConfigOptions } from './launch-config.js';
import { isLaunchRecorder } from './launch-recorder.js';
import type { LaunchPlan } from '../device/launch-plan.js';
import type { LaunchPlanCore } from './launch-plan.js';

const INITIAL_QUEUE_BYTES = 4096;
const PREFIX = LAUNCH_QUEUE_RECORD.body;

/**
 * The launches of one {@link launchBatch} scope: each {@link launch} is
 * checked and packed at once, as `launch()` does (an argument error is thrown
 * there, at the call that caused it), and recorded into a native queue; the
 * queue is submitted in one native call, in the order recorded, when the
 * scope ends, at {@link submit}, or before anything else of cuda-js reaches
 * the stream (see {@link launchBatch}).
 */
export class LaunchBatch {
  /** The CUstream every launch of the batch is on. */
  readonly stream: bigint;
  /** The CUDA context that was current when the batch opened. */
  readonly context: bigint;
  #queue = new ArrayBuffer(INITIAL_QUEUE_BYTES);
  #bytes = new Uint8Array(this.#queue);
  #words = new Uint32Array(this.#queue);
  #used = 0;
  /** Records in the queue now. */
  #pending = 0;
  /** Launches of the batch submitted so far (enqueued, launched at once, or dropped after a failed one). */
  #submitted = 0;
  /** Launches of the batch enqueued so far. */
  #enqueued = 0;
  readonly #launches: (LaunchFunction | PackedLaunch)[] = [];
  readonly #plans: LaunchPlanCore[] = [];
  readonly #indexOf = new Map<LaunchPlanCore, number>();
  #open = true;

  /** @internal made by {@link launchBatch} */
  constructor(stream: bigint, context: bigint) {
    this.stream = stream;
    this.context = context;
  }

  /** How many launches were recorded so far (submitted or not). */
  get size(): number {
    return this.#submitted + this.#pending;
  }

  /** How many launches were enqueued on the stream so far. */
  get enqueued(): number {
    return this.#enqueued;
  }

  /** Records a launch of `kernel` with `config` and `args`, as {@link launch} takes them (on the batch's stream). */
  launch(config: LaunchConfig | LaunchConfigOptions, kernel: KernelArgument, ...args: unknown[]): void {
    this.#launchPlan(planFor(kernel), config, args);
  }

  /**
   * Records a launch of a {@link LaunchPlan} (a JIT kernel's, say). A cluster
   * or cooperative launch, which no queue takes, is launched at once, after
   * what the batch holds.
   */
  launchPlan(plan: LaunchPlan, config: LaunchConfig | LaunchConfigOptions, args: readonly unknown[]): void {
    this.#launchPlan(plan, config, args);
  }

  #launchPlan(plan: LaunchPlanCore, config: LaunchConfig | LaunchConfigOptions, args: readonly unknown[]): void {
    if (!this.#open) throw new LaunchConfigError('launchBatch: the batch has ended; record launches inside its scope');
    const record = plan.packRecord(config, this.stream, args, this.context);
    if (record === undefined) {
      this.submit();
      plan.run(config, this.stream, args);
      this.#submitted++;
      this.#enqueued++;
      return;
    }
    let which = this.#indexOf.get(plan);
    if (which === undefined) {
      which = this.#launches.length;
      this.#launches.push(plan.queued);
      this.#plans.push(plan);
      this.#indexOf.set(plan, which);
    }
    const size = PREFIX + record.byteLength; // the record is a multiple of 8 bytes: the header ends it
    let at = this.#used;
    if (at + size > this.#queue.byteLength) this.#grow(at + size);
    const words = this.#words;
    words[at >>> 2] = which;
    words[(at >>> 2) + 1] = size;
    this.#bytes.set(record, at + PREFIX);
    at += size;
    this.#used = at;
    this.#pending++;
  }

  #grow(needed: number): void {
    let length = this.#queue.byteLength * 2;
    while (length < needed) length *= 2;
    const queue = new ArrayBuffer(length);
    const bytes = new Uint8Array(queue);
    bytes.set(this.#bytes.subarray(0, this.#used));
    this.#queue = queue;
    this.#bytes = bytes;
    this.#words = new Uint32Array(queue);
  }

  /**
   * Submits the recorded launches now, in one native call.
   *
   * @throws {LaunchBatchError} naming the launch that failed (those before it were enqueued; it and the rest are dropped)
   */
  submit(): void {
    const used = this.#used;
    if (used === 0) return;
    const pending = this.#pending;
    const base = this.#submitted;
    this.#used = 0;
    this.#pending = 0;
    this.#submitted += pending;
    try {
      this.#enqueued += driver.cuLaunchKernelQueue(this.#queue, used, this.#launches);
    } catch (error) {
      const index = (error as { launchIndex?: unknown }).launchIndex;
      if (typeof index !== 'number') throw error;
      this.#enqueued += index;
      const plan = this.#plans[this.#words[this.#recordOffset(index) >>> 2]!];
      throw new LaunchBatchError(base + index, plan?.name ?? 'a kernel', this.#enqueued, (error as Error).message, {
        cause: error,
      });
    }
  }

  /** The byte offset of record `index` in the queue (walked, only for an error). */
  #recordOffset(index: number): number {
    let at = 0;
    for (let i = 0; i < index; i++) at += this.#words[(at >>> 2) + 1]!;
    return at;
  }

  /** @internal ends the batch (after its last submission) */
  end(): void {
    this.#open = false;
  }
}

/**
 * Runs `scope` with a {@link LaunchBatch} on `stream`: the launches it
 * records are submitted in one native call, in order, when `scope` returns
 * (or throws: what it recorded is submitted, then its error is thrown), so
 * that many launches cost one crossing into native code. `scope` must be
 * synchronous (a Promise is refused, after the submission).
 *
 * Ordering is as if each launch ran where it was recorded: anything else that
 * reaches the stream through cuda-js while the batch is open (a copy, an
 * event record, a host function, `launch()`, another stream's `wait` on it,
 * a foreign library that takes it through `Symbol.for('cuda.stream')`) first
 * submits what the batch holds. Only code that kept the raw CUstream handle
 * from before the batch could enqueue ahead of it.
 *
 * @throws {LaunchBatchError} for a launch that failed at submission (by its index in the batch)
 */
export function launchBatch(stream: StreamArgument, scope: (batch: LaunchBatch) => void): void {
  if (isLaunchRecorder(stream))
    throw new TypeError('launchBatch: a graph builder records its launches already; call launch() on it');
  const handle = stream instanceof Stream ? stream.handle : streamHandle(stream, 'launchBatch: stream');
  ensureDriver();
  const context = driver.cuCtxGetCurrent() as bigint;
  if (context === 0n)
    throw new LaunchConfigError('launchBatch: no current CUDA context; call device.setCurrent() first');
  const batch = new LaunchBatch(handle, context);
  const undefer = deferStreamWork(handle, () => batch.submit());
  let result: unknown;
  try {
    result = scope(batch);
  } catch (error) {
    undefer();
    batch.end();
    try {
      batch.submit();
    } catch (submitError) {
      throw new AggregateError(
        [error, submitError],
        'launchBatch: the scope threw, and submitting the launches it recorded failed too',
      );
    }
    throw error;
  }
  undefer();
  batch.end();
  batch.submit();
  if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
    throw new TypeError(
      'launchBatch: the scope returned a Promise; a batch scope is synchronous (its launches were submitted when it returned)',
    );
  }
}
