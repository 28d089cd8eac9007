// launchHostFunction's promise, its error reporting and the deadlock checks,
// against a stand-in for the driver that runs the queued host functions when
// the test says the stream reached them (no GPU, no driver). The real addon
// is exercised in no-device.test.ts and in core's host-memory.gpu.test.ts.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const queued: { stream: bigint; run: () => void }[] = [];
const calls: string[] = [];

vi.mock('@cuda-js/bindings', async (importOriginal) => {
  const original = await importOriginal<typeof import('@cuda-js/bindings')>();
  return {
    ...original,
    perThreadDefaultStream: () => false,
    launchBlockingHostFunc: (stream: bigint, run: () => void) => {
      if (stream === 0xdeadn)
        throw new original.CudaError(400, 'CUDA_ERROR_INVALID_HANDLE', 'cuLaunchHostFunc', 'invalid resource handle');
      queued.push({ stream, run });
    },
    driver: {
      ...original.driver,
      cuStreamSynchronize: (s: bigint) => calls.push(`cuStreamSynchronize ${s}`),
      cuEventRecord: (e: bigint, s: bigint) => calls.push(`cuEventRecord ${e} ${s}`),
      cuEventSynchronize: (e: bigint) => calls.push(`cuEventSynchronize ${e}`),
    },
  };
});

const {
  Event,
  HostFunctionDeadlockError,
  HostFunctionError,
  Stream,
  checkBlockingWait,
  launchHostFunction,
  pendingHostFunctions,
} = await import('./index.js');

// The stand-in driver's streams are made-up handles: each is wrapped once, as a foreign stream must be before a bigint of it is taken.
for (const handle of [
  0x11n,
  0x12n,
  0x100n,
  0x200n,
  0x300n,
  0x400n,
  0x500n,
  0x501n,
  0x600n,
  0x700n,
  0x800n,
  0x900n,
  0xdeadn,
])
  Stream.from(handle);

/** The stream reaches its next host function: runs it as the driver's thread would (it never sees an exception). */
function reachNext(): void {
  const next = queued.shift();
  if (next === undefined) throw new Error('no host function is queued');
  expect(() => next.run()).not.toThrow();
}

beforeEach(() => {
  while (queued.length > 0) reachNext();
  calls.length = 0;
});

describe('launchHostFunction', () => {
  it('settles with what the function returned, once the stream reached it, in order', async () => {
    const s = Stream.from(0x100n);
    const order: number[] = [];
    const a = s.launchHostFunction(() => (order.push(1), 'a'));
    const b = launchHostFunction(s, () => (order.push(2), 42));
    expect(queued.map((q) => q.stream)).toEqual([0x100n, 0x100n]);
    expect(pendingHostFunctions(s)).toBe(2);
    expect(pendingHostFunctions()).toBe(2);
    expect(order).toEqual([]);
    reachNext();
    expect(order).toEqual([1]);
    expect(pendingHostFunctions(s)).toBe(1);
    reachNext();
    await expect(a).resolves.toBe('a');
    await expect(b).resolves.toBe(42);
    expect(order).toEqual([1, 2]);
    expect(pendingHostFunctions()).toBe(0);
  });

  it('reports a throw as a HostFunctionError whose cause is the thrown value, and the stream goes on', async () => {
    const s = Stream.from(0x200n);
    const boom = new RangeError('boom');
    const failed = s.launchHostFunction(() => {
      throw boom;
    });
    const after = s.launchHostFunction(() => 'later work ran');
    reachNext(); // the driver's thread sees a normal return
    reachNext();
    const error = await failed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HostFunctionError);
    expect((error as Error).name).toBe('HostFunctionError');
    expect((error as Error).cause).toBe(boom);
    expect((error as InstanceType<typeof HostFunctionError>).stream).toBe(0x200n);
    expect((error as Error).message).toBe('a host function launched on stream 0x200 threw: RangeError: boom');
    await expect(after).resolves.toBe('later work ran');
    expect(pendingHostFunctions()).toBe(0);
  });

  it('follows a promise that the function returns (the stream does not wait for it)', async () => {
    const s = Stream.from(0x300n);
    const ok = s.launchHostFunction(async () => 'async value');
    const bad = s.launchHostFunction(() => Promise.reject(new Error('late')));
    reachNext();
    reachNext();
    expect(pendingHostFunctions(s)).toBe(0);
    await expect(ok).resolves.toBe('async value');
    await expect(bad).rejects.toThrow(HostFunctionError);
    await expect(bad).rejects.toThrow('threw: Error: late');
  });

  it('checks its arguments, and counts nothing that the driver refused', () => {
    expect(() => launchHostFunction(0x400n, 'f' as never)).toThrow(TypeError);
    expect(() => launchHostFunction(7 as never, () => 1)).toThrow(TypeError);
    expect(() => launchHostFunction(0xdeadn, () => 1)).toThrow(/CUDA_ERROR_INVALID_HANDLE/);
    expect(pendingHostFunctions()).toBe(0);
    expect(queued).toHaveLength(0);
  });
});

describe('blocking waits while a host function is pending', () => {
  it('Stream.synchronize is refused on that stream, not on another one, and works once the function ran', () => {
    const s = Stream.from(0x500n);
    const other = Stream.from(0x501n);
    void s.launchHostFunction(() => undefined);
    expect(() => s.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => s.synchronize()).toThrow(
      /Stream\.synchronize would never return: 1 host function\(s\) are pending on stream 0x500.*Await instead/,
    );
    other.synchronize();
    expect(calls).toEqual(['cuStreamSynchronize 1281']);
    reachNext();
    s.synchronize();
    expect(calls).toEqual(['cuStreamSynchronize 1281', 'cuStreamSynchronize 1280']);
  });

  it('the legacy default stream waits for every blocking stream; its own functions hold up every stream', () => {
    const s = Stream.from(0x600n);
    void s.launchHostFunction(() => undefined);
    expect(() => checkBlockingWait(0n, 'wait')).toThrow(/legacy default stream waits for every blocking stream/);
    expect(() => Stream.legacyDefault.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => checkBlockingWait('context', 'Device.synchronize')).toThrow(
      /Device\.synchronize would never return: 1 host function/,
    );
    reachNext();
    void launchHostFunction(0n, () => undefined);
    expect(pendingHostFunctions(Stream.legacyDefault)).toBe(1);
    expect(() => checkBlockingWait(0x700n, 'copy')).toThrow(/pending on the legacy default stream/);
    reachNext();
    expect(() => checkBlockingWait(0x700n, 'copy')).not.toThrow();
    expect(() => checkBlockingWait('context', 'sync')).not.toThrow();
  });

  it('Event.synchronize is refused for an event recorded after a pending function, not for one recorded before', () => {
    const s = Stream.from(0x800n);
    const before = Event.fromHandle(0x11n).record(s);
    void s.launchHostFunction(() => undefined);
    const after = Event.fromHandle(0x12n).record(s);
    before.synchronize();
    expect(() => after.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => after.synchronize()).toThrow(
      /recorded after 1 host function\(s\) that are still pending on stream 0x800/,
    );
    reachNext();
    after.synchronize();
    expect(calls.filter((c) => c.startsWith('cuEventSynchronize'))).toEqual([
      'cuEventSynchronize 17',
      'cuEventSynchronize 18',
    ]);
  });

  it('a host function that blocks on its own stream is refused, and the refusal is its reported error', async () => {
    const s = Stream.from(0x900n);
    const selfWait = s.launchHostFunction(() => s.synchronize());
    reachNext();
    await expect(selfWait).rejects.toThrow(HostFunctionError);
    const cause = await selfWait.catch((e: Error) => e.cause);
    expect(cause).toBeInstanceOf(HostFunctionDeadlockError);
  });
});
