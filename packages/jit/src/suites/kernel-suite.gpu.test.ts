// The kernel suite on the GPU: each kernel gives the simulator's results,
// plus the dispatcher's promises: one compile per signature, explicit
// signatures, reused views, CUDA-array-interface objects, host arrays copied
// both ways.
import { Device, f32, i32 } from '@cuda-js/core';
import { CUDA_ARRAY_INTERFACE, StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { array, cuda, jit, KernelArgumentError } from '../index.js';
import { BREADTH_SUITE } from './kernel-breadth-suite.test-support.js';
import { cloneArgs, firstDifference, kernelFor, outputData, SUITE } from './kernel-suite.test-support.js';

describeGpu('kernel suite on the GPU, against the simulator', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
    process.removeAllListeners('warning'); // host-array copies warn once per argument; expected here
  });

  for (const c of SUITE) {
    it(c.name, () => {
      const onGpu = c.args();
      const simulated = cloneArgs(onGpu);
      kernelFor(c, 'simulator').launch({ grid: c.grid, block: c.block }, ...simulated);
      kernelFor(c, 'gpu').launch({ grid: c.grid, block: c.block }, ...onGpu);
      for (const o of c.outputs)
        expect(
          firstDifference(outputData(onGpu[o]), outputData(simulated[o]), c.tolerance),
          `argument ${o}`,
        ).toBeUndefined();
    });
  }

  // The breadth suite's kernels cooperate (barriers, warps, atomics, grid sync): their results are checked against the reference itself.
  for (const c of BREADTH_SUITE) {
    it(`breadth: ${c.name}`, () => {
      const onGpu = c.args();
      const expected = cloneArgs(onGpu);
      c.reference(expected);
      kernelFor(c, 'gpu').launch({ grid: c.grid, block: c.block, sharedMemory: c.sharedMemory }, ...onGpu);
      for (const o of c.outputs)
        expect(
          firstDifference(outputData(onGpu[o]), outputData(expected[o]), c.tolerance),
          `argument ${o}`,
        ).toBeUndefined();
    });
  }

  const axpySource = (a: number, x: Float32Array, y: Float32Array) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i]! + y[i]!;
  };

  function deviceArray(values: Float32Array): { view: StridedMemoryView; read(): Float32Array; close(): void } {
    const buffer = device.allocate(values.byteLength);
    buffer.copyFrom(values);
    const view = StridedMemoryView.fromPointer(buffer.ptr, {
      dtype: 'float32',
      shape: [values.length],
      exporter: buffer,
    });
    return {
      view,
      read: () => {
        const out = new Float32Array(values.length);
        buffer.copyTo(out);
        return out;
      },
      close: () => buffer.close(),
    };
  }

  it('compiles once per signature (a counter), and again for a new signature', () => {
    const axpy = jit(axpySource);
    const x = deviceArray(new Float32Array(1000).fill(1));
    const y = deviceArray(new Float32Array(1000).fill(2));
    for (let k = 0; k < 5; k++) axpy.launch({ grid: 4, block: 256 }, f32(1), x.view, y.view);
    expect(axpy.compileCount).toBe(1);
    axpy.launch({ grid: 4, block: 256 }, 1, x.view, y.view); // a plain number: f64, a second signature
    expect(axpy.compileCount).toBe(2);
    expect([...axpy.specializations.keys()]).toEqual([
      "f32, array(f32, 1, 'C'), array(f32, 1, 'C')",
      "f64, array(f32, 1, 'C'), array(f32, 1, 'C')",
    ]);
    expect(y.read()[999]).toBe(8);
    x.close();
    y.close();
  });

  it('takes an explicit signature ahead of the launch, and the launch reuses it', () => {
    const axpy = jit(axpySource);
    axpy.compile([f32, array(f32, 1), array(f32, 1)]);
    expect(axpy.compileCount).toBe(1);
    const x = deviceArray(Float32Array.from({ length: 300 }, (_, i) => i));
    const y = deviceArray(new Float32Array(300));
    axpy.launch({ grid: 2, block: 256 }, f32(3), x.view, y.view);
    expect(axpy.compileCount).toBe(1);
    expect(y.read()[299]).toBe(897);
    x.close();
    y.close();
  });

  it('reuses a view across launches and sees the data change between them', () => {
    const axpy = jit(axpySource);
    const x = deviceArray(new Float32Array(256).fill(1));
    const y = deviceArray(new Float32Array(256));
    for (let k = 0; k < 10; k++) axpy.launch({ grid: 1, block: 256 }, f32(k), x.view, y.view);
    expect(y.read()[0]).toBe(45);
    x.close();
    y.close();
  });

  it('views objects that implement the CUDA array interface at launch', () => {
    const axpy = jit(axpySource);
    const n = 512;
    const x = deviceArray(new Float32Array(n).fill(2));
    const y = deviceArray(new Float32Array(n).fill(1));
    const cai = (view: StridedMemoryView) => ({
      [CUDA_ARRAY_INTERFACE]: () =>
        Object.freeze({
          shape: [n],
          typestr: '<f4',
          data: Object.freeze([view.ptr!, false]),
          version: 3,
          strides: null,
        }),
    });
    axpy.launch({ grid: 2, block: 256 }, f32(10), cai(x.view), cai(y.view));
    expect(y.read()[n - 1]).toBe(21);
    x.close();
    y.close();
  });

  it('copies host arrays to the device and back, and only what the kernel writes', () => {
    const axpy = jit(axpySource);
    const x = new Float32Array(1000).fill(3);
    const y = new Float32Array(1000).fill(1);
    axpy.launch({ grid: 4, block: 256 }, f32(2), x, y);
    expect(y[0]).toBe(7);
    expect(y[999]).toBe(7);
    expect(x[0]).toBe(3);
  });

  it('launches with forall and a block size from occupancy', () => {
    const axpy = jit(axpySource);
    const x = new Float32Array(100000).fill(1);
    const y = new Float32Array(100000).fill(1);
    axpy.forall(x.length)(f32(1), x, y);
    expect(y.every((v) => v === 2)).toBe(true);
  });

  it('refuses a wrong argument count and a wrong dtype for the specialization, naming the argument', () => {
    const axpy = jit(axpySource);
    // @ts-expect-error: the run-time check, for JavaScript callers (TypeScript refuses the missing argument)
    expect(() => axpy.launch({ grid: 1, block: 32 }, f32(1), new Float32Array(4))).toThrow(KernelArgumentError);
    const fill = jit((out: Int32Array, v: number) => {
      const i = cuda.grid(1);
      if (i < out.length) out[i] = v;
    });
    const out = new Int32Array(64);
    fill.launch({ grid: 1, block: 64 }, out, i32(7));
    expect(out[63]).toBe(7);
  });
});
