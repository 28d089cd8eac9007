import { nccl } from '@cuda-js/bindings';
import { Event } from '@cuda-js/streams';
import type { Device } from '../device/device.js';
import { CommunicatorStateError } from '../errors.js';
import { CollectiveWork } from './collective-work.js';

/** A call issued inside a group: its work, the stream it is ordered on, and that stream's device. */
interface GroupedCall {
  readonly work: CollectiveWork;
  readonly stream: bigint;
  readonly device: Device;
}

/** The outermost group of this thread that has not ended, and how deep its nesting is (NCCL issues the calls at the outermost end). */
let open: { depth: number; calls: GroupedCall[]; nested: CollectiveWork[] } | undefined;

/** An event recorded now on `stream`, created in `device`'s context. */
function recordOn(device: Device, stream: bigint): Event {
  device.ensureCurrent();
  return Event.create().record(stream);
}

/**
 * The work of a call just issued on `stream` of `device`: completed by an
 * event recorded now, or, inside a group, by the group's end.
 */
export function issued(device: Device, stream: bigint, sources: object[]): CollectiveWork {
  if (open === undefined) return new CollectiveWork(sources, [recordOn(device, stream)]);
  const work = new CollectiveWork(sources);
  open.calls.push({ work, stream, device });
  return work;
}

/** Whether `fn` returned a Promise (an async function): a CollectiveWork, which `() => comm.send(...)` returns, is not one. */
function isThenable(value: unknown): boolean {
  if (value instanceof CollectiveWork) return false;
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs `fn` between ncclGroupStart and ncclGroupEnd, so that NCCL issues its
 * calls together (what several communicators of one thread need, and
 * send/recv pairs): `Communicator.group`. The returned work completes when
 * every call of the group has (an event per stream, recorded after the
 * outermost group ends). `fn` must be synchronous.
 */
export function runGroup(fn: () => unknown): CollectiveWork {
  if (typeof fn !== 'function')
    throw new TypeError('Communicator.group: fn must be a function that issues collective calls');
  nccl.ncclGroupStart(); // first: where it fails (no NCCL), no group is open
  const outermost = open === undefined;
  const state = (open ??= { depth: 0, calls: [], nested: [] });
  const first = state.calls.length;
  const firstNested = state.nested.length;
  state.depth++;
  let failure: { error: unknown } | undefined;
  try {
    const result = fn();
    if (isThenable(result)) {
      failure = {
        error: new CommunicatorStateError(
          'Communicator.group: fn returned a Promise; NCCL groups are synchronous: issue every call before fn returns, and await the group instead',
        ),
      };
    }
  } catch (error) {
    failure = { error };
  }
  state.depth--;
  try {
    nccl.ncclGroupEnd();
  } catch (error) {
    failure ??= { error };
  } finally {
    if (outermost) open = undefined;
  }
  const work = new CollectiveWork([]);
  if (failure) {
    // the calls that were issued still run (ncclGroupEnd issued them); awaiting them says why the group failed
    const failed = outermost ? state : { calls: state.calls.slice(first), nested: state.nested.slice(firstNested) };
    for (const call of failed.calls) call.work._fail(failure.error);
    for (const nested of failed.nested) nested._fail(failure.error);
    throw failure.error;
  }
  if (!outermost) {
    // NCCL issues nested calls at the outermost end: this group's work completes with them
    state.nested.push(work);
    return work;
  }
  const events = new Map<string, Event>();
  for (const call of state.calls) {
    const key = `${call.device.ordinal}:${call.stream}`;
    let event = events.get(key);
    if (event === undefined) {
      event = recordOn(call.device, call.stream);
      events.set(key, event);
    }
    call.work._complete([event]);
  }
  const all = [...events.values()];
  for (const nested of state.nested) nested._complete(all);
  work._complete(all);
  return work;
}
