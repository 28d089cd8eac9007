// Several GPUs in one process, and NCCL across GPUs and processes. What one
// GPU allows runs everywhere (peer access of a device to itself, the clear
// error for a device that is not there); the rest needs two devices and is
// skipped, with the reason printed, on a host with fewer.
import { spawn } from 'node:child_process';
import { LibraryNotFoundError, nccl } from '@cuda-js/bindings';
import { StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { describeGpu, gpuAvailability } from '@cuda-js/test-support';
import { missingLibrary } from '@cuda-js/test-support/driver-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Buffer,
  Communicator,
  Device,
  DeviceMemoryResource,
  DeviceMismatchError,
  DeviceNotFoundError,
  launch,
} from '../index.js';
import { compileTestKernels } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void add_one(const float* src, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] + 1.0f;
}
`;

// ncclGetVersion opens libnccl where pathfinder finds it
const ncclMissing = missingLibrary(
  () => nccl.ncclGetVersion(),
  (error) => error instanceof LibraryNotFoundError,
);

const f32 = (b: Buffer, stream: Stream) =>
  StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'float32' });
function read(b: Buffer, stream: Stream): Float32Array {
  const out = new Float32Array(b.size / 4);
  b.copyTo(out, { stream });
  return out;
}

describeGpu('several devices', () => {
  // describeGpu collects the body of a skipped suite too: ask the driver only where the probe found a device
  const gpu = gpuAvailability().available;
  const count = gpu ? Device.count() : 0;
  if (gpu && count < 2)
    console.log(`multi-device.gpu.test.ts: two-device tests skipped: needs 2 CUDA devices, this host has ${count}`);

  describe('what one device shows', () => {
    it('a device can access itself; asking for a device that is not there says so', () => {
      const d0 = Device.get(0);
      expect(d0.canAccessPeer(d0)).toBe(true);
      expect(d0.canAccessPeer(0)).toBe(true);
      expect(() => d0.canAccessPeer('1' as never)).toThrow(TypeError);
      const resource = new DeviceMemoryResource(d0);
      resource.peerAccessibleBy = [d0]; // the owner always has access: it is never listed, and no other device is
      expect(resource.peerAccessibleBy).toEqual([]);
      if (count === 1) {
        expect(() => Device.get(1)).toThrow(DeviceNotFoundError);
        expect(() => Device.get(1)).toThrow('no CUDA device 1: the driver reports 1 device(s)');
        expect(() => d0.canAccessPeer(1)).toThrow(/no CUDA device 1/);
        expect(() => new DeviceMemoryResource(d0, { peerAccessibleBy: [1] })).toThrow(DeviceNotFoundError);
        expect(() => Communicator.initAll([0, 1])).toThrow(DeviceNotFoundError);
      }
    });
  });

  describe.skipIf(count < 2)('two devices', () => {
    let d0: Device;
    let d1: Device;
    let s0: Stream;
    let s1: Stream;
    let peer: boolean;
    let k: ReturnType<typeof compileTestKernels>;
    beforeAll(() => {
      d0 = Device.get(0);
      d1 = Device.get(1);
      s0 = d0.createStream();
      s1 = d1.createStream();
      peer = d0.canAccessPeer(d1) && d1.canAccessPeer(d0);
      if (!peer)
        console.log('multi-device.gpu.test.ts: devices 0 and 1 cannot access each other: peer-access tests skipped');
      k = compileTestKernels(SOURCE, ['add_one'], d0.arch);
    });
    afterAll(() => {
      // leave the default pools as they were for the other test files
      d0.memoryResource.peerAccessibleBy = [];
      d1.memoryResource.peerAccessibleBy = [];
      s0?.close();
      s1?.close();
      k?.unload();
    });

    it('allocates, fills and copies on both devices without switching contexts by hand', () => {
      const values = Float32Array.from({ length: 4096 }, (_, i) => i * 0.5);
      d1.setCurrent(); // the wrong one for the first buffer: each call makes its own device current
      using a = d0.allocate(values.byteLength, { stream: s0 });
      using b = d1.allocate(values.byteLength, { stream: s1 });
      a.copyFrom(values, { stream: s0 });
      b.fill(0, { stream: s1 });
      expect(Device.current()).toBe(d1);
      expect(read(a, s0)).toEqual(values);
      expect(read(b, s1)).toEqual(new Float32Array(values.length));
      // the default stream (0n): the buffer's own device's
      a.fill(0, { stream: 0n });
      expect(Device.current()).toBe(d0);
      expect(read(a, s0)).toEqual(new Float32Array(values.length));
      using e1 = d1.createEvent();
      expect(Device.current()).toBe(d1);
      e1.record(s1).synchronize();
    });

    it('copies between the devices (cuMemcpyPeerAsync) with checked data, on a stream of either, and refuses a stream of neither', () => {
      const values = Float32Array.from({ length: 1 << 18 }, (_, i) => (i % 1000) - 500);
      using a = d0.allocate(values.byteLength, { stream: s0 });
      using b = d1.allocate(values.byteLength, { stream: s1 });
      a.copyFrom(values, { stream: s0 });
      s1.wait(s0);
      a.copyTo(b, { stream: s1 });
      expect(read(b, s1)).toEqual(values);
      b.fill(0, { stream: s1 });
      s0.wait(s1);
      b.copyFrom(a, { stream: s0 });
      s1.wait(s0);
      expect(read(b, s1)).toEqual(values);
      b.fill(0, { stream: s1 });
      b.copyFrom(a, { stream: 0n }); // the default stream of b's device, which waits for s1 (a blocking stream)
      expect(Device.current()).toBe(d1);
      expect(read(b, s1)).toEqual(values);
      if (Device.count() > 2) {
        using s2 = Device.get(2).createStream();
        expect(() => a.copyTo(b, { stream: s2 })).toThrow(DeviceMismatchError);
      }
    });

    it("refuses a stream of one device with another device's buffer, unless its pool grants access", () => {
      const pool = new DeviceMemoryResource(d0);
      pool.peerAccessibleBy = [];
      using a = pool.allocate(1024, { stream: s0 });
      expect(() => a.fill(1, { stream: s1 })).toThrow(DeviceMismatchError);
      expect(() => a.fill(1, { stream: s1 })).toThrow(
        /the stream belongs to Device\(1\), the memory to Device\(0\), and Device\(1\) has no access to it/,
      );
      expect(() => pool.allocate(64, { stream: s1 })).toThrow(DeviceMismatchError);
      if (!peer) return;
      pool.peerAccessibleBy = [1];
      expect(pool.peerAccessibleBy).toEqual([d1]);
      a.fill(7, { stream: s1 });
      s1.synchronize();
      const back = new Uint8Array(1024);
      a.copyTo(back, { stream: s0 });
      expect(back.every((x) => x === 7)).toBe(true);
      pool.peerAccessibleBy = [];
      expect(pool.peerAccessibleBy).toEqual([]);
    });

    it("runs a kernel on device 1 that reads device 0's memory through peer access", () => {
      if (!peer) return;
      const n = 10_000;
      const values = Float32Array.from({ length: n }, (_, i) => i / 7);
      d0.memoryResource.peerAccessibleBy = [d1];
      using src = d0.allocate(n * 4, { stream: s0 });
      using dst = d1.allocate(n * 4, { stream: s1 });
      src.copyFrom(values, { stream: s0 });
      s1.wait(s0);
      d1.setCurrent(); // core's launch runs on the current device
      launch(s1, { grid: Math.ceil(n / 256), block: 256 }, k.kernels['add_one']!, f32(src, s1), f32(dst, s1), n);
      expect(read(dst, s1)).toEqual(values.map((v) => Math.fround(v + 1)));
      d0.memoryResource.peerAccessibleBy = [];
      expect(() => launch(s1, { grid: 1, block: 1 }, k.kernels['add_one']!, f32(src, s1), f32(dst, s1), 1)).toThrow(
        /the array lives on CUDA device 0, but the launch is on device 1/,
      );
    });

    describe.skipIf(ncclMissing !== undefined)('NCCL across the two devices', () => {
      it('all-reduces across two devices of one process (ncclCommInitAll, one group)', async () => {
        const comms = Communicator.initAll([d0, d1]);
        try {
          expect(comms.map((c) => [c.rank, c.worldSize, c.device])).toEqual([
            [0, 2, d0],
            [1, 2, d1],
          ]);
          const n = 1 << 20;
          const streams = [s0, s1];
          const parts = comms.map((c, r) => {
            const values = Float32Array.from({ length: n }, (_, i) => (r + 1) * (i % 97));
            const buffer = c.device.allocate(n * 4, { stream: streams[r]! });
            buffer.copyFrom(values, { stream: streams[r]! });
            return buffer;
          });
          const gathered = comms.map((c, r) => c.device.allocate(n * 4 * 2, { stream: streams[r]! }));
          await Communicator.group(() =>
            comms.forEach((c, r) =>
              c.allReduce(f32(parts[r]!, streams[r]!), f32(parts[r]!, streams[r]!), { stream: streams[r]! }),
            ),
          );
          const expected = Float32Array.from({ length: n }, (_, i) => 3 * (i % 97));
          for (const [r, b] of parts.entries()) expect(read(b, streams[r]!)).toEqual(expected);
          await Communicator.group(() =>
            comms.forEach((c, r) =>
              c.allGather(f32(parts[r]!, streams[r]!), f32(gathered[r]!, streams[r]!), { stream: streams[r]! }),
            ),
          );
          for (const [r, g] of gathered.entries()) {
            const back = read(g, streams[r]!);
            expect(back.subarray(0, n)).toEqual(expected);
            expect(back.subarray(n)).toEqual(expected);
          }
          expect(() => comms[0]!.allReduce(f32(parts[1]!, s1), f32(parts[1]!, s1), { stream: s0 })).toThrow(
            DeviceMismatchError,
          );
          expect(() => comms[0]!.allReduce(f32(parts[0]!, s0), f32(parts[0]!, s0), { stream: s1 })).toThrow(
            /a communicator's calls run on a stream of its own device/,
          );
          for (const b of [...parts, ...gathered]) b.close();
        } finally {
          for (const c of comms) c.close();
        }
      });

      it('all-reduces across two processes from a unique id (the child is forked with it, and inherits NCCL_NVLS_ENABLE)', async () => {
        const id = Communicator.uniqueId();
        const child = `
          import { Communicator, Device } from '@cuda-js/core';
          import { StridedMemoryView } from '@cuda-js/memory-view';
          const device = Device.get(1);
          const stream = device.createStream();
          const comm = Communicator.initRank({ id: process.env.CUDA_JS_TEST_NCCL_ID, rank: 1, worldSize: 2, device });
          const n = 1000;
          const buffer = device.allocate(n * 4, { stream });
          buffer.copyFrom(Float32Array.from({ length: n }, (_, i) => 2 * i), { stream });
          await comm.allReduce(StridedMemoryView.fromAny(buffer, { stream }).view({ dtype: 'float32' }), StridedMemoryView.fromAny(buffer, { stream }).view({ dtype: 'float32' }), { stream });
          const out = new Float32Array(n);
          buffer.copyTo(out, { stream });
          comm.close();
          console.log(JSON.stringify({ ok: out.every((v, i) => v === 3 * i), nvls: process.env.NCCL_NVLS_ENABLE, rank: comm.rank }));
        `;
        const proc = spawn(process.execPath, ['--input-type=module', '-e', child], {
          cwd: new URL('../..', import.meta.url).pathname, // the package: '@cuda-js/core' resolves to its built dist
          env: { ...process.env, CUDA_JS_TEST_NCCL_ID: id },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        proc.stdout.on('data', (d: Uint8Array) => (out += String(d)));
        proc.stderr.on('data', (d: Uint8Array) => (out += String(d)));
        const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
        // blocks until the child has joined
        const comm = Communicator.initRank({ id, rank: 0, worldSize: 2, device: d0 });
        try {
          const n = 1000;
          using buffer = d0.allocate(n * 4, { stream: s0 });
          buffer.copyFrom(
            Float32Array.from({ length: n }, (_, i) => i),
            { stream: s0 },
          );
          await comm.allReduce(f32(buffer, s0), f32(buffer, s0), { stream: s0 });
          expect(read(buffer, s0)).toEqual(Float32Array.from({ length: n }, (_, i) => 3 * i));
        } finally {
          comm.close();
        }
        expect(await exited, out).toBe(0);
        expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ ok: true, nvls: '0', rank: 1 });
      });
    });
  });
});
