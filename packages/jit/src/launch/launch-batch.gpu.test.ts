// On a GPU: JIT kernels in core's launch batches (`kernel.launch({ grid,
// block, batch }, ...)`): recorded in order with their own arguments, mixed
// with core launches, the same kernel with other argument types; a host array
// is refused at the launch that passes it; and the one-call launch outside a
// batch.
import { Device, f32, i32, launchBatch } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelArgumentError } from '../errors.js';
import { jit } from '../jit.js';

describeGpu('JIT kernels in launch batches', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });

  const append = jit((log: Int32Array, step: number) => {
    if (cuda.grid(1) === 0) {
      log[1 + log[0]!] = step;
      log[0] = log[0]! + 1;
    }
  });
  const axpy = jit((a: number, x: Float32Array, y: Float32Array) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i]! + y[i]!;
  });

  it('records JIT launches in order, each with its arguments, beside other kernels and argument types', () => {
    using stream = device.createStream();
    using logBuffer = device.allocate(4 * 1001, { stream });
    logBuffer.fill(0, { stream });
    const log = StridedMemoryView.fromAny(logBuffer, { stream }).view({ dtype: 'int32' });
    const n = 1024;
    using xb = device.allocate(n * 4, { stream });
    using yb = device.allocate(n * 4, { stream });
    xb.copyFrom(new Float32Array(n).fill(1), { stream });
    yb.fill(0, { stream });
    const x = StridedMemoryView.fromAny(xb, { stream }).view({ dtype: 'float32' });
    const y = StridedMemoryView.fromAny(yb, { stream }).view({ dtype: 'float32' });
    launchBatch(stream, (batch) => {
      for (let i = 0; i < 500; i++) {
        append.launch({ grid: 1, block: 32, batch }, log, i);
        if (i % 100 === 0) axpy.launch({ grid: n / 128, block: 128, batch }, 2, x, y); // f64 a
        if (i % 100 === 50) axpy.launch({ grid: n / 128, block: 128, batch }, f32(0.5), x, y); // another specialization
      }
    });
    const out = new Int32Array(1001);
    logBuffer.copyTo(out, { stream });
    const ys = new Float32Array(n);
    yb.copyTo(ys, { stream });
    stream.synchronize();
    expect(out[0]).toBe(500);
    expect([...out.subarray(1, 501)]).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(ys[0]).toBe(5 * 2 + 5 * 0.5);
    expect(axpy.specializations.size).toBe(2);
  });

  it('refuses a host array in a batch, and a stream beside the batch, at the launch', () => {
    using stream = device.createStream();
    expect(() =>
      launchBatch(stream, (batch) => {
        append.launch({ grid: 1, block: 1, batch }, new Int32Array(4), i32(1) as never);
      }),
    ).toThrow(KernelArgumentError);
    expect(() =>
      launchBatch(stream, (batch) => {
        append.launch({ grid: 1, block: 1, batch }, new Int32Array(4), 1);
      }),
    ).toThrow(/argument 'log'.*host array, which a launch batch cannot take/);
    using b = device.allocate(64, { stream });
    const log = StridedMemoryView.fromAny(b, { stream }).view({ dtype: 'int32' });
    expect(() => launchBatch(stream, (batch) => append.launch({ grid: 1, block: 1, batch, stream }, log, 1))).toThrow(
      /leave 'stream' out/,
    );
  });

  it('launches outside a batch too, each launch with its own arguments (the one-call path)', () => {
    using stream = device.createStream();
    using b = device.allocate(4 * 8, { stream });
    b.fill(0, { stream });
    const log = StridedMemoryView.fromAny(b, { stream }).view({ dtype: 'int32' });
    append.launch({ grid: 1, block: 1, stream }, log, 5);
    append.launch({ grid: 1, block: 1, stream }, log, 7);
    const out = new Int32Array(8);
    b.copyTo(out, { stream });
    stream.synchronize();
    expect([...out.subarray(0, 3)]).toEqual([2, 5, 7]);
  });
});
