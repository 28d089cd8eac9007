// The queue a LaunchBatch records: one record per launch, in order, each its
// launch's index, its size and a copy of the plan's parameters and header as
// they were at that launch; a failure at submission names the launch by its
// index in the batch. Plans here are stand-ins over real parameter buffers
// (the native launch functions, with a kernel handle that nothing launches):
// the checks a real plan makes against the device are the GPU tests'.
import type { CUfunction, LaunchFunction } from '@cuda-js/bindings';
import { LAUNCH_QUEUE_RECORD } from '@cuda-js/bindings/runtime';
import { errorOf } from '@cuda-js/test-support/errors';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LaunchBatchError } from '../errors.js';
import { LaunchBatch } from './launch-batch.js';
import { LaunchConfig, type LaunchConfigOptions } from './launch-config.js';
import type { LaunchPlan } from '../device/launch-plan.js';
import { ParameterBuffer } from './parameter-buffer.js';

const submitted = vi.hoisted(() => ({
  calls: [] as { queue: Uint8Array; used: number; launches: unknown[] }[],
  fail: undefined as undefined | ((used: number) => never),
}));
vi.mock('@cuda-js/bindings', async (importOriginal) => {
  const original = await importOriginal<typeof import('@cuda-js/bindings')>();
  // recorded instead of launched: a test hands a queue to the real one itself
  const cuLaunchKernelQueue = (queue: ArrayBuffer, used: number, launches: readonly unknown[]) => {
    submitted.calls.push({ queue: new Uint8Array(queue.slice(0, used)), used, launches: [...launches] });
    if (submitted.fail) submitted.fail(used);
    return countRecords(new Uint8Array(queue), used);
  };
  return { ...original, driver: { ...original.driver, cuLaunchKernelQueue } };
});

function countRecords(bytes: Uint8Array, used: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  let n = 0;
  for (let at = 0; at < used; n++) at += view.getUint32(at + LAUNCH_QUEUE_RECORD.bytes, true);
  return n;
}

afterEach(() => {
  submitted.calls.length = 0;
  submitted.fail = undefined;
});

const CONTEXT = 0xc0n;
const STREAM = 0x5e0n;

/** A stand-in plan: `sizes` parameters of these byte sizes, packed in order (arguments are bigints written at each offset). */
function fakePlan(name: string, sizes: readonly number[]) {
  let offset = 0;
  const parameters = sizes.map((size) => {
    offset = Math.ceil(offset / size) * size;
    const p = { offset, size };
    offset += size;
    return p;
  });
  const buffer = new ParameterBuffer(0x1234n as CUfunction, parameters);
  const plan = {
    name,
    get queued() {
      return buffer.queued;
    },
    packRecord(config: LaunchConfig | LaunchConfigOptions, stream: bigint, args: readonly bigint[], context: bigint) {
      const cfg = config instanceof LaunchConfig ? config : LaunchConfig.from(config);
      buffer.expectContext(context);
      parameters.forEach((p, i) => {
        for (let b = 0; b < p.size; b++) buffer.bytes[p.offset + b] = Number((args[i]! >> BigInt(8 * b)) & 0xffn);
      });
      buffer.writeHeader(cfg, stream);
      return buffer.record;
    },
    run: vi.fn(),
  };
  return plan as typeof plan & LaunchPlan;
}

/** The records of a submitted queue: launch index, size, body. */
function recordsOf(call: { queue: Uint8Array; used: number }) {
  const view = new DataView(call.queue.buffer);
  const records: { which: number; bytes: number; body: Uint8Array }[] = [];
  for (let at = 0; at < call.used; ) {
    const which = view.getUint32(at + LAUNCH_QUEUE_RECORD.launch, true);
    const bytes = view.getUint32(at + LAUNCH_QUEUE_RECORD.bytes, true);
    records.push({ which, bytes, body: call.queue.slice(at + LAUNCH_QUEUE_RECORD.body, at + bytes) });
    at += bytes;
  }
  return records;
}

describe('LaunchBatch', () => {
  it('records each launch with a copy of its parameters and header, in order, and submits them in one call', () => {
    const a = fakePlan('a', [8, 4]);
    const b = fakePlan('b', [8, 8, 8]);
    const batch = new LaunchBatch(STREAM, CONTEXT);
    const config = new LaunchConfig({ grid: 2, block: 32 });
    batch.launchPlan(a, config, [1n, 2n]);
    batch.launchPlan(b, config, [3n, 4n, 5n]);
    batch.launchPlan(a, { grid: 3, block: 64 }, [6n, 7n]);
    expect(batch.size).toBe(3);
    expect(submitted.calls).toHaveLength(0);
    batch.submit();
    expect(submitted.calls).toHaveLength(1);
    const call = submitted.calls[0]!;
    expect(call.launches).toEqual([a.queued, b.queued]);
    const records = recordsOf(call);
    expect(records.map((r) => [r.which, r.bytes])).toEqual([
      [0, 8 + 64],
      [1, 8 + 72],
      [0, 8 + 64],
    ]);
    const u32 = (body: Uint8Array, at: number) => new DataView(body.buffer, body.byteOffset).getUint32(at, true);
    const u64 = (body: Uint8Array, at: number) => new DataView(body.buffer, body.byteOffset).getBigUint64(at, true);
    expect([u64(records[0]!.body, 0), u32(records[0]!.body, 8)]).toEqual([1n, 2]);
    expect([u64(records[2]!.body, 0), u32(records[2]!.body, 8)]).toEqual([6n, 7]);
    expect([
      u32(records[0]!.body, 16),
      u32(records[0]!.body, 28),
      u64(records[0]!.body, 48),
      u64(records[0]!.body, 56),
    ]).toEqual([2, 32, STREAM, CONTEXT]);
    expect([u32(records[2]!.body, 16), u32(records[2]!.body, 28)]).toEqual([3, 64]);
    expect([u64(records[1]!.body, 16), u64(records[1]!.body, 24 + 32), u64(records[1]!.body, 24 + 40)]).toEqual([
      5n,
      STREAM,
      CONTEXT,
    ]);
    expect(batch.enqueued).toBe(3);
    batch.submit(); // nothing left: no call
    expect(submitted.calls).toHaveLength(1);
  });

  it("writes queues that the native submission accepts: it gets past every record's checks to the driver", async () => {
    const { driver } = await vi.importActual<typeof import('@cuda-js/bindings')>('@cuda-js/bindings');
    const batch = new LaunchBatch(STREAM, CONTEXT);
    const plans = [fakePlan('a', [8, 4]), fakePlan('b', [2]), fakePlan('c', Array(100).fill(8))];
    for (let i = 0; i < 50; i++) batch.launchPlan(plans[i % 3]!, { grid: i + 1, block: 1 }, Array(100).fill(BigInt(i)));
    batch.submit();
    const { queue, used, launches } = submitted.calls[0]!;
    const error = errorOf<unknown>(() => {
      driver.cuLaunchKernelQueue(queue, used, launches as never);
    });
    // no CUDA library here, or one with no device: the error is the context query's, naming no record
    expect((error as Error).name).toMatch(/^(LibraryNotFoundError|CudaError|LibraryLoadError)$/);
    expect((error as { launchIndex?: number }).launchIndex).toBeUndefined();
    expect(() => driver.cuLaunchKernelQueue(queue, used - 8, launches as never)).toThrow(
      /queued launch 49 has a size of/,
    );
  });

  it('queues any sequence of launches as the same records, in order, growing its queue (fast-check)', () => {
    const plans = [fakePlan('p0', [8]), fakePlan('p1', [4, 8, 2]), fakePlan('p2', Array(40).fill(8))];
    const launch = fc.record({
      plan: fc.integer({ min: 0, max: 2 }),
      seed: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      grid: fc.integer({ min: 1, max: 1 << 20 }),
    });
    fc.assert(
      fc.property(fc.array(launch, { maxLength: 120 }), fc.integer({ min: 0, max: 120 }), (launches, submitAt) => {
        submitted.calls.length = 0;
        const batch = new LaunchBatch(STREAM, CONTEXT);
        const expected: { which: number; body: Uint8Array }[] = [];
        const order: number[] = [];
        launches.forEach(({ plan, seed, grid }, i) => {
          if (i === submitAt) batch.submit();
          const p = plans[plan]!;
          const args =
            p === plans[0] ? [seed] : Array.from({ length: 40 }, (_, k) => BigInt.asUintN(64, seed + BigInt(k)));
          batch.launchPlan(p, new LaunchConfig({ grid, block: 1 }), args);
          if (!order.includes(plan)) order.push(plan);
          expected.push({ which: plan, body: new Uint8Array((p.queued as LaunchFunction).buffer).slice() }); // the record is the whole buffer
        });
        batch.submit();
        const records = submitted.calls.flatMap((call) =>
          recordsOf(call).map((r) => ({ ...r, launches: call.launches })),
        );
        expect(records).toHaveLength(launches.length);
        records.forEach((r, i) => {
          expect(r.launches[r.which]).toBe(plans[expected[i]!.which]!.queued);
          expect(r.body).toEqual(expected[i]!.body);
        });
        expect(batch.size).toBe(launches.length);
      }),
      { seed: 23, numRuns: 60 },
    );
  });

  it("names a launch that fails at submission by its index in the batch and its kernel's name", () => {
    const a = fakePlan('first', [8]);
    const b = fakePlan('second', [8]);
    const batch = new LaunchBatch(STREAM, CONTEXT);
    const config = new LaunchConfig({ grid: 1, block: 1 });
    batch.launchPlan(a, config, [1n]);
    batch.submit();
    for (let i = 0; i < 4; i++) batch.launchPlan(i === 2 ? b : a, config, [BigInt(i)]);
    submitted.fail = () => {
      throw Object.assign(new Error('cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE'), { launchIndex: 2 });
    };
    const error = errorOf<unknown>(() => {
      batch.submit();
    });
    expect(error).toBeInstanceOf(LaunchBatchError);
    const e = error as LaunchBatchError;
    expect([e.launchIndex, e.kernelName, e.enqueued]).toEqual([3, 'second', 3]);
    expect(e.message).toMatch(
      /^launchBatch: launch 3 \(second\) failed: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE; it and the launches recorded after it were not enqueued \(3 of the batch's launches were\)/,
    );
    expect((e.cause as Error).message).toMatch(/CUDA_ERROR_INVALID_VALUE/);
    // an error that names no launch (no driver, say) is thrown as it is
    submitted.fail = () => {
      throw new Error('no driver');
    };
    batch.launchPlan(a, config, [9n]);
    expect(() => batch.submit()).toThrow(/^no driver$/);
  });

  it('launches a cluster or cooperative launch at once, after what it holds, and refuses launches after it ended', () => {
    const a = fakePlan('a', [8]);
    const cooperative = fakePlan('coop', [8]);
    cooperative.packRecord = () => undefined as never;
    const batch = new LaunchBatch(STREAM, CONTEXT);
    const config = new LaunchConfig({ grid: 1, block: 1 });
    batch.launchPlan(a, config, [1n]);
    batch.launchPlan(cooperative, config, [2n]);
    expect(submitted.calls).toHaveLength(1); // submitted first
    expect(cooperative.run).toHaveBeenCalledWith(config, STREAM, [2n]);
    expect([batch.size, batch.enqueued]).toEqual([2, 2]);
    batch.end();
    expect(() => batch.launchPlan(a, config, [1n])).toThrow(/launchBatch: the batch has ended/);
  });
});
