// NCCL on one GPU: one-rank communicators (ncclCommInitAll of one device, and
// ncclCommInitRank of world size 1 from a unique id), each collective and
// send/recv-to-self with checked data, on core Buffers and on views, ordered
// on cuda-js streams and awaited. With one rank a collective still runs NCCL's
// kernels and writes the output: every output is filled with a marker first,
// so that a call that wrote nothing fails. Two-rank runs are in
// multi-device.gpu.test.ts (they need two GPUs).
import { LibraryNotFoundError, loadedLibraries, NcclError, nccl } from '@cuda-js/bindings';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { ClosedResourceError, type Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { missingLibrary } from '@cuda-js/test-support/driver-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Buffer,
  CollectiveArgumentError,
  CollectiveWork,
  Communicator,
  CommunicatorStateError,
  Device,
} from '../index.js';

// ncclGetVersion opens libnccl where pathfinder finds it
const ncclMissing = missingLibrary(
  () => nccl.ncclGetVersion(),
  (error) => error instanceof LibraryNotFoundError,
);
if (ncclMissing !== undefined)
  console.log(`nccl.gpu.test.ts: skipped: NCCL is not installed (${ncclMissing}); pip install nvidia-nccl-cu13`);

const MARK = 0x7fc00001; // a NaN pattern for floats, a large int for i32: no result of these calls

describeGpu('NCCL on one GPU', () => {
  describe.skipIf(ncclMissing !== undefined)('one-rank communicators', () => {
    let device: Device;
    let stream: Stream;
    let comm: Communicator;
    beforeAll(() => {
      device = Device.get(0);
      stream = device.createStream();
      [comm] = Communicator.initAll([device]) as [Communicator];
    });
    afterAll(() => {
      comm?.close();
      stream?.close();
    });

    /** A device Buffer holding `values`, and a marked one of `outElements` 4-byte elements. */
    function buffers(values: Float32Array | Int32Array, outElements = values.length): { send: Buffer; recv: Buffer } {
      const send = device.allocate(values.byteLength, { stream });
      send.copyFrom(values, { stream });
      const recv = device.allocate(outElements * 4, { stream });
      recv.fill(MARK >>> 0, { stream, width: 4 });
      return { send, recv };
    }
    const f32 = (b: Buffer) => StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'float32' });
    const i32 = (b: Buffer) => StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'int32' });
    function readF32(b: Buffer): Float32Array {
      const out = new Float32Array(b.size / 4);
      b.copyTo(out, { stream });
      return out;
    }
    function readI32(b: Buffer): Int32Array {
      const out = new Int32Array(b.size / 4);
      b.copyTo(out, { stream });
      return out;
    }

    it('is rank 0 of 1 on device 0, with NCCL loaded from where pathfinder found it and NVLink multicast left off', () => {
      expect(comm.rank).toBe(0);
      expect(comm.worldSize).toBe(1);
      expect(comm.device).toBe(device);
      expect(Communicator.version).toMatch(/^2\.\d+\.\d+$/);
      expect(nccl.ncclCommCuDevice(comm.handle)).toBe(0);
      expect(comm.asyncError()).toBeUndefined();
      const loaded = loadedLibraries().find((l) => l.name === 'nccl');
      expect(loaded?.path).toMatch(/libnccl\.so\.2$/);
      expect(loaded?.version).toBe(Communicator.version);
      expect(process.env['NCCL_NVLS_ENABLE']).toBe('0');
    });

    it('all-reduces float32 with sum and max, and int32 with sum and max, into a second array and in place', async () => {
      const values = Float32Array.from({ length: 1000 }, (_, i) => i * 0.25 - 7);
      const { send, recv } = buffers(values);
      const work = comm.allReduce(f32(send), f32(recv), { stream });
      expect(work).toBeInstanceOf(CollectiveWork);
      await work;
      expect(work.isDone).toBe(true);
      expect(readF32(recv)).toEqual(values);
      recv.fill(MARK >>> 0, { stream, width: 4 });
      await comm.allReduce(f32(send), f32(recv), { stream, op: 'max' });
      expect(readF32(recv)).toEqual(values);
      await comm.allReduce(f32(send), f32(send), { stream, op: 'avg' }); // in place
      expect(readF32(send)).toEqual(values);

      const ints = Int32Array.from({ length: 777 }, (_, i) => ((i * 7919) % 2001) - 1000);
      const b = buffers(ints);
      await comm.allReduce(i32(b.send), i32(b.recv), { stream, op: 'sum' });
      expect(readI32(b.recv)).toEqual(ints);
      b.recv.fill(MARK >>> 0, { stream, width: 4 });
      await comm.allReduce(i32(b.send), i32(b.recv), { stream, op: 'max' });
      expect(readI32(b.recv)).toEqual(ints);
      for (const x of [send, recv, b.send, b.recv]) x.close();
    });

    it('takes Buffers with a dtype option, and part of them with a count', async () => {
      const values = Int32Array.from({ length: 64 }, (_, i) => i - 32);
      const { send, recv } = buffers(values);
      await comm.allReduce(send, recv, { stream, dtype: 'int32', op: 'min' });
      expect(readI32(recv)).toEqual(values);
      recv.fill(MARK >>> 0, { stream, width: 4 });
      await comm.allReduce(send, recv, { stream, dtype: 'int32', count: 10 });
      const back = readI32(recv);
      expect(back.subarray(0, 10)).toEqual(values.subarray(0, 10));
      expect(back[10]).toBe(MARK);
      expect(() => comm.allReduce(send, recv, { stream })).toThrow(/a Buffer has no element type: pass \{ dtype \}/);
      send.close();
      recv.close();
    });

    it('broadcasts and reduces from root 0', async () => {
      const values = Float32Array.from({ length: 257 }, (_, i) => Math.sin(i));
      const { send, recv } = buffers(values);
      await comm.broadcast(f32(send), f32(recv), { stream, root: 0 });
      expect(readF32(recv)).toEqual(values);
      recv.fill(MARK >>> 0, { stream, width: 4 });
      await comm.reduce(f32(send), f32(recv), { stream, root: 0, op: 'prod' });
      expect(readF32(recv)).toEqual(values);
      expect(() => comm.broadcast(null, f32(recv), { stream })).toThrow(
        /this rank is the root: send must be the array to broadcast/,
      );
      expect(() => comm.reduce(f32(send), f32(recv), { stream, root: 1 })).toThrow(
        /root must be a rank in \[0, 1\), got 1/,
      );
      send.close();
      recv.close();
    });

    it('all-gathers and reduce-scatters (world size 1: the gathered array is the one block)', async () => {
      const values = Int32Array.from({ length: 300 }, (_, i) => i * 3);
      const { send, recv } = buffers(values);
      await comm.allGather(i32(send), i32(recv), { stream });
      expect(readI32(recv)).toEqual(values);
      recv.fill(MARK >>> 0, { stream, width: 4 });
      await comm.reduceScatter(i32(send), i32(recv), { stream, op: 'sum' });
      expect(readI32(recv)).toEqual(values);
      const bigger = device.allocate(values.byteLength * 2, { stream });
      expect(() => comm.allGather(i32(send), i32(bigger), { stream })).toThrow(
        /recv has 600 elements; the call needs 300/,
      );
      bigger.close();
      send.close();
      recv.close();
    });

    it('moves dtypes NCCL has no type for as bytes (int16 all-gather), and refuses to reduce them', async () => {
      const values = Int16Array.from({ length: 99 }, (_, i) => i * 300 - 15000);
      using send = device.allocate(values.byteLength, { stream });
      using recv = device.allocate(values.byteLength, { stream });
      send.copyFrom(values, { stream });
      recv.fill(0xab, { stream });
      const view = (b: Buffer) => StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'int16' });
      await comm.allGather(view(send), view(recv), { stream });
      const back = new Int16Array(values.length);
      recv.copyTo(back, { stream });
      expect(back).toEqual(values);
      expect(() => comm.allReduce(view(send), view(recv), { stream })).toThrow(/NCCL cannot reduce int16/);
    });

    it('sends to itself and receives in one group; the group and each call are awaitable', async () => {
      const values = Float32Array.from({ length: 4096 }, (_, i) => i / 3);
      const { send, recv } = buffers(values);
      let inside: CollectiveWork[] = [];
      const group = Communicator.group(() => {
        inside = [comm.send(f32(send), 0, { stream }), comm.recv(f32(recv), 0, { stream })];
        expect(inside[0]!.isDone).toBe(false);
        expect(() => inside[0]!.synchronize()).toThrow(CommunicatorStateError);
      });
      await group;
      await Promise.all(inside);
      expect(group.events).toHaveLength(1); // one stream: one event
      expect(readF32(recv)).toEqual(values);
      // nested groups issue at the outermost end
      recv.fill(MARK >>> 0, { stream, width: 4 });
      const outer = Communicator.group(() => {
        Communicator.group(() => comm.send(f32(send), 0, { stream }));
        comm.recv(f32(recv), 0, { stream });
      });
      outer.synchronize();
      expect(readF32(recv)).toEqual(values);
      expect(() => Communicator.group(async () => undefined)).toThrow(/fn returned a Promise/);
      send.close();
      recv.close();
    });

    it('orders on any stream of its device, and its work can order another stream', async () => {
      using other = device.createStream();
      const values = Float32Array.from({ length: 1 << 16 }, (_, i) => i % 251);
      const { send, recv } = buffers(values);
      const work = comm.allReduce(f32(send), f32(recv), { stream });
      other.wait(work.events[0]!);
      using copy = device.allocate(recv.size, { stream: other });
      copy.copyFrom(recv, { stream: other });
      await other.synchronized();
      const out = new Float32Array(values.length);
      copy.copyTo(out, { stream: other });
      expect(out).toEqual(values);
      send.close();
      recv.close();
    });

    it('joins a one-rank communicator from a unique id (ncclCommInitRank) and all-reduces', async () => {
      const id = Communicator.uniqueId();
      expect(id).toMatch(/^[A-Za-z0-9+/]{171}=$/);
      using own = Communicator.initRank({ id, rank: 0, worldSize: 1, device: 0 });
      expect([own.rank, own.worldSize, own.device]).toEqual([0, 1, device]);
      const values = Float32Array.from({ length: 33 }, (_, i) => 2 ** (i % 10));
      const { send, recv } = buffers(values);
      await own.allReduce(f32(send), f32(recv), { stream });
      expect(readF32(recv)).toEqual(values);
      send.close();
      recv.close();
    });

    it('refuses bad calls by name before NCCL, and a closed communicator', () => {
      using a = device.allocate(64, { stream });
      using b = device.allocate(32, { stream });
      expect(() => comm.allReduce(f32(a), f32(b), { stream })).toThrow(/recv has 8 elements; the call needs 16/);
      expect(() => comm.allReduce(f32(a), f32(a), { stream, op: 'mean' as never })).toThrow(
        /op must be one of sum, prod, max, min, avg/,
      );
      expect(() => comm.allReduce(f32(a), i32(a), { stream })).toThrow(/dtypes differ \(float32 and int32\)/);
      expect(() => comm.allReduce(new Float32Array(16), f32(a), { stream })).toThrow(CollectiveArgumentError);
      expect(() => comm.send(f32(a), 3, { stream })).toThrow(/peer must be a rank in \[0, 1\), got 3/);
      expect(() => comm.allReduce(f32(a), f32(a), { stream, root: 0 } as never)).toThrow(/unknown option 'root'/);
      const closing = Communicator.initAll([0])[0]!;
      const handle = closing.handle;
      closing.close();
      closing.close();
      expect(closing.closed).toBe(true);
      expect(() => closing.allReduce(f32(a), f32(a), { stream })).toThrow(ClosedResourceError);
      // the bindings know the communicator is gone: NCCL is never given it again
      expect(() => nccl.ncclCommUserRank(handle)).toThrow(NcclError);
      const aborted = Communicator.initAll([0])[0]!;
      aborted.abort();
      expect(aborted.closed).toBe(true);
    });
  });
});
