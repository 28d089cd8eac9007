// A JIT launch runs on the device its arrays live on (or its stream's), with
// no context switch by the user, and refuses arrays spread over devices that
// cannot reach each other. Needs two GPUs: skipped, with the reason printed,
// on a host with fewer.
import { type Buffer, Device } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { describeGpu, gpuAvailability } from '@cuda-js/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { cuda, jit } from '../index.js';

const addOne = jit((src: Float32Array, dst: Float32Array) => {
  const i = cuda.grid(1);
  if (i < dst.length) dst[i] = src[i]! + 1;
});

const view = (b: Buffer, stream: Stream) =>
  StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'float32' });
function read(b: Buffer, stream: Stream): Float32Array {
  const out = new Float32Array(b.size / 4);
  b.copyTo(out, { stream });
  return out;
}

describeGpu('JIT launches on several devices', () => {
  // describeGpu collects the body of a skipped suite too: ask the driver only where the probe found a device
  const gpu = gpuAvailability().available;
  const count = gpu ? Device.count() : 0;
  if (gpu && count < 2) console.log(`launch-device.gpu.test.ts: skipped: needs 2 CUDA devices, this host has ${count}`);

  describe.skipIf(count < 2)('two devices', () => {
    let d0: Device;
    let d1: Device;
    let s0: Stream;
    let s1: Stream;
    const n = 5000;
    const values = Float32Array.from({ length: n }, (_, i) => i * 0.125);
    const plusOne = values.map((v) => Math.fround(v + 1));
    beforeAll(() => {
      d0 = Device.get(0);
      d1 = Device.get(1);
      s0 = d0.createStream();
      s1 = d1.createStream();
    });
    afterAll(() => {
      d0.memoryResource.peerAccessibleBy = [];
      s0?.close();
      s1?.close();
    });

    it('runs where the arrays live, whichever device is current', () => {
      using src = d1.allocate(n * 4, { stream: s1 });
      using dst = d1.allocate(n * 4, { stream: s1 });
      src.copyFrom(values, { stream: s1 });
      d0.setCurrent();
      addOne.launch({ grid: Math.ceil(n / 128), block: 128, stream: s1 }, view(src, s1), view(dst, s1));
      expect(read(dst, s1)).toEqual(plusOne);
      // no stream: the first array's device, and its default stream
      dst.fill(0, { stream: s1 });
      s1.synchronize();
      d0.setCurrent();
      addOne.launch({ grid: Math.ceil(n / 128), block: 128 }, view(src, s1), view(dst, s1));
      expect(Device.current()).toBe(d1);
      expect(read(dst, s1)).toEqual(plusOne);
    });

    it('refuses arrays on two devices without peer access, naming the argument', () => {
      d0.memoryResource.peerAccessibleBy = [];
      using src = d0.allocate(n * 4, { stream: s0 });
      using dst = d1.allocate(n * 4, { stream: s1 });
      const launchIt = () =>
        addOne.launch({ grid: Math.ceil(n / 128), block: 128, stream: s1 }, view(src, s1), view(dst, s1));
      expect(launchIt).toThrow(KernelArgumentError);
      expect(launchIt).toThrow(
        /argument 'src' \(1 of 2\): the array lives on device 0, but the launch runs on device 1 \(the stream's\), which has no access to it/,
      );
    });

    it("reads device 0's memory from a kernel on device 1 once its pool grants access", () => {
      if (!d1.canAccessPeer(d0)) {
        console.log('launch-device.gpu.test.ts: device 1 cannot access device 0: peer-access launch skipped');
        return;
      }
      d0.memoryResource.peerAccessibleBy = [d1];
      using src = d0.allocate(n * 4, { stream: s0 });
      using dst = d1.allocate(n * 4, { stream: s1 });
      src.copyFrom(values, { stream: s0 });
      s1.wait(s0);
      addOne.launch({ grid: Math.ceil(n / 128), block: 128, stream: s1 }, view(src, s1), view(dst, s1));
      expect(read(dst, s1)).toEqual(plusOne);
    });
  });
});
