// Fuzz suite of issue 20, the device-only cases: launch configs past the device's and the
// kernel's limits (and cooperative with clusters) named before the driver, 2-D copies into
// JS buffers (sized, and written into the buffer itself), and NCCL on one rank (dtypes it
// cannot reduce, a view of a closed Buffer, send and recv that overlap other than in
// place). Seeded and bounded; CUDA_JS_FUZZ_RUNS and CUDA_JS_FUZZ_SEED for the long mode.
import { driver, LibraryNotFoundError, nccl } from '@cuda-js/bindings';
import { DLDeviceType, StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectiveArgumentError, Communicator, type Device, launch, LaunchConfigError } from './index.js';
import { gpuTestKernels } from './test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void mark(int* out) { if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = blockDim.x * blockDim.y * blockDim.z; }
`;
const params = fuzzParameters(40);

let ncclMissing: string | undefined;
try {
  nccl.ncclGetVersion();
} catch (error) {
  if (!(error instanceof LibraryNotFoundError)) throw error;
  ncclMissing = error.message.split('\n')[0];
  console.log(`hostile.fuzz.gpu.test.ts: the NCCL cases are skipped: NCCL is not installed (${ncclMissing})`);
}

describeGpu('fuzz on a device (issue 20)', () => {
  const fixture = gpuTestKernels(SOURCE, ['mark']);
  let device: Device;
  let stream: Stream;

  beforeAll(() => {
    device = fixture.device;
    stream = device.createStream();
  });
  afterAll(() => stream?.close());

  it('launches a block the device runs, and names any other before the driver', () => {
    using out = device.allocate(4, { stream });
    const mark = fixture.kernel('mark');
    const a = device.attributes;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2048 }),
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 1, max: 70 }),
        fc.boolean(),
        (x, y, z, clustered) => {
          const config = {
            grid: 2,
            block: [x, y, z] as [number, number, number],
            ...(clustered ? { cluster: 2, cooperative: true } : {}),
          };
          const runs =
            !clustered &&
            x <= a.maxBlockDimX &&
            y <= a.maxBlockDimY &&
            z <= a.maxBlockDimZ &&
            x * y * z <= a.maxThreadsPerBlock;
          if (!runs) {
            expect(() => launch(stream, config, mark, out)).toThrow(LaunchConfigError);
            return;
          }
          launch(stream, config, mark, out);
          const got = new Int32Array(1);
          out.copyTo(got, { stream });
          expect(got[0]).toBe(x * y * z);
        },
      ),
      { ...params, numRuns: Math.min(params.numRuns, 200) },
    );
  });

  it('names dynamic shared memory past the device before the driver (2^31-1 was an engine RangeError)', () => {
    using out = device.allocate(4, { stream });
    const mark = fixture.kernel('mark');
    for (const sharedMemory of [2 ** 31 - 1, 2 ** 32 - 1, device.attributes.maxSharedMemoryPerBlockOptin + 1]) {
      expect(() => launch(stream, { grid: 1, block: 1, sharedMemory }, mark, out)).toThrow(LaunchConfigError);
    }
  });

  it('copies 2-D into the JS buffer itself (not a copy of it), and refuses one smaller than the rows', () => {
    using src = device.allocate(256, { stream });
    src.fill(0x5a, { stream });
    stream.synchronize();
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: -2, max: 2 }),
        (width, rows, slack) => {
          const pitch = 16;
          const needed = (rows - 1) * pitch + width;
          const dst = new Uint8Array(Math.max(1, needed + slack)).fill(1); // ends in a non-zero byte
          const copy = {
            srcMemoryType: driver.CUmemorytype.CU_MEMORYTYPE_DEVICE,
            srcDevice: src.ptr,
            srcPitch: pitch,
            dstMemoryType: driver.CUmemorytype.CU_MEMORYTYPE_HOST,
            dstHost: dst,
            dstPitch: pitch,
            WidthInBytes: width,
            Height: rows,
          };
          if (dst.byteLength < needed) {
            expect(() => driver.cuMemcpy2D(copy as never)).toThrow(RangeError);
            return;
          }
          driver.cuMemcpy2D(copy as never);
          for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) expect(dst[r * pitch + c]).toBe(0x5a);
        },
      ),
      params,
    );
  });

  describe.skipIf(ncclMissing !== undefined)('NCCL on one rank', () => {
    let comm: Communicator;
    beforeAll(() => {
      [comm] = Communicator.initAll([device]) as [Communicator];
    });
    afterAll(() => comm?.close());

    const viewAt = (ptr: bigint, elements: number, dtype = 'float32') =>
      StridedMemoryView.fromPointer(ptr, {
        dtype,
        shape: [elements],
        device: { type: DLDeviceType.CUDA, id: device.ordinal },
      });

    it('refuses dtypes it cannot reduce and a view of a closed Buffer, before NCCL', () => {
      using data = device.allocate(64, { stream });
      for (const dtype of ['bool', 'complex64', 'int16']) {
        expect(() => comm.allReduce(data, data, { dtype, stream })).toThrow(CollectiveArgumentError);
      }
      const closing = device.allocate(64, { stream });
      const view = StridedMemoryView.fromAny(closing, { stream: stream.handle }).view({ dtype: 'float32' });
      closing.close({ stream });
      expect(() => comm.allReduce(view, data, { stream })).toThrow(/send is memory of a closed Buffer/);
      expect(() => comm.allReduce(closing, data, { dtype: 'float32', stream })).toThrow();
    });

    it('reduces float8 only where NCCL (2.24 and newer) and the device (compute capability 9.0 and newer) do', () => {
      using data = device.allocate(64, { stream });
      const reduces = nccl.ncclGetVersion() >= 22400 && device.computeCapability.major >= 9;
      for (const dtype of ['float8_e4m3fn', 'float8_e5m2']) {
        if (reduces) comm.allReduce(data, data, { dtype, stream });
        else expect(() => comm.allReduce(data, data, { dtype, stream })).toThrow(/has no float8|reduces float8/);
      }
      stream.synchronize();
    });

    it('reduces send and recv that are the same memory or apart, and names any other overlap', async () => {
      using memory = device.allocate(1024, { stream });
      memory.fill(0, { stream });
      const arbitrary = fc.tuple(
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
      );
      for (const [sendAt, recvAt, elements] of fc.sample(arbitrary, { numRuns: params.numRuns, seed: params.seed })) {
        const send = viewAt(memory.ptr + BigInt(sendAt * 4), elements);
        const recv = viewAt(memory.ptr + BigInt(recvAt * 4), elements);
        const overlap = sendAt < recvAt + elements && recvAt < sendAt + elements;
        if (overlap && sendAt !== recvAt) {
          expect(() => comm.allReduce(send, recv, { stream })).toThrow(CollectiveArgumentError);
          continue;
        }
        await comm.allReduce(send, recv, { stream });
      }
    });
  });
});
