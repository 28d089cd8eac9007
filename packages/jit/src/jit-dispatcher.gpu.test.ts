// The dispatcher's host-side pieces on the GPU: each specialization's
// compiled kernel (registers, shared and local memory, occupancy) and
// maxCooperativeGridBlocks, checked by launching that grid cooperatively.
import { Device, f32 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda } from './cuda.js';
import { jit } from './jit.js';
import { array } from './typing/signature.js';

describeGpu('JitKernel dispatcher pieces on the GPU', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });

  it('gives each specialization its compiled kernel with registers, shared and local memory', () => {
    const staged = jit((x: Float32Array) => {
      const sm = cuda.shared.array(512, f32);
      const local = cuda.local.array(64, f32);
      const t = cuda.threadIdx.x;
      for (let k = 0; k < 64; k++) local[k] = x[(t + k) % x.length]!;
      sm[t] = local[(t * 7) % 64]!;
      cuda.syncthreads();
      x[t] = sm[511 - t]!;
    });
    const spec = staged.compile([array(f32, 1)]);
    const kernel = spec.kernel!;
    const a = kernel.attributes();
    expect(a.numRegs).toBeGreaterThan(0);
    expect(a.sharedSizeBytes).toBe(512 * 4);
    expect(a.maxThreadsPerBlock).toBeGreaterThanOrEqual(256);
    expect(kernel.occupancy.maxActiveBlocksPerMultiprocessor(256)).toBeGreaterThan(0);
    expect([...staged.specializations.values()][0]?.kernel).toBe(kernel);
  });

  it('maxCooperativeGridBlocks is the occupancy times the multiprocessors, and exactly that grid launches cooperatively', () => {
    const count = jit((out: Int32Array) => {
      cuda.atomic.add(out, 0, 1);
      cuda.cg.thisGrid().sync();
      if (cuda.grid(1) === 0) out[1] = out[0]!;
    });
    const spec = count.compile([array('i32', 1)]);
    const blocks = count.maxCooperativeGridBlocks(128);
    expect(blocks).toBe(
      spec.kernel!.occupancy.maxActiveBlocksPerMultiprocessor(128) * device.attributes.multiprocessorCount,
    );
    using buffer = device.allocate(8);
    buffer.fill(0);
    const out = StridedMemoryView.fromAny(buffer, { stream: 0n }).view({ dtype: 'int32' });
    count.launch({ grid: blocks, block: 128 }, out);
    const host = new Int32Array(2);
    buffer.copyTo(host);
    expect([...host]).toEqual([blocks * 128, blocks * 128]);
    expect(() => count.launch({ grid: blocks + 1, block: 128 }, out)).toThrow(/co-resident/);
  });
});
