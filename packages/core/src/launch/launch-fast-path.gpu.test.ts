// On a GPU: the launch fast path (a packed launch whose header holds the
// dimensions, stream and expected context, written only when they change;
// arguments remembered per position). Each test checks what the kernel saw:
// changed plain-object configs, alternating configs and streams, mixed
// scalars, CUDA array interface answers that move or turn bad, and launches
// after the current context changed.
import { driver } from '@cuda-js/bindings';
import { CUDA_ARRAY_INTERFACE } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import {
  type Device,
  f64,
  LaunchArgumentError,
  LaunchConfig,
  LaunchConfigError,
  LaunchPlan,
  launch,
  type Buffer,
} from '../index.js';
import { gpuTestKernels, readInts as ints } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void record_dims(unsigned int* out) {
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
    out[0] = gridDim.x; out[1] = gridDim.y; out[2] = blockDim.x; out[3] = blockDim.y;
  }
}
extern "C" __global__ void mixed(double* out, int a, double b, unsigned long long c) {
  if (blockIdx.x == 0 && threadIdx.x == 0) { out[0] = (double)a; out[1] = b; out[2] = (double)(c >> 32); out[3] = (double)(c & 0xffffffffull); }
}
extern "C" __global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
`;
const NAMES = ['record_dims', 'mixed', 'add_one'] as const;

describeGpu('the launch fast path on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, NAMES);
  const kernel = (name: (typeof NAMES)[number]) => gpu.kernel(name);
  let device: Device;
  beforeAll(() => {
    device = gpu.device;
  });

  it('launches a plain { grid, block } object with what it says at each launch, also after it was changed in place', () => {
    using stream = device.createStream();
    using out = device.allocate(16, { stream });
    const options: { grid: number | [number, number]; block: [number, number] } = { grid: 2, block: [32, 1] };
    launch(stream, options, kernel('record_dims'), out);
    expect(ints(out, 4, stream)).toEqual([2, 1, 32, 1]);
    launch(stream, options, kernel('record_dims'), out); // the same object again: the same config
    expect(ints(out, 4, stream)).toEqual([2, 1, 32, 1]);
    options.grid = [3, 2];
    options.block[1] = 2; // changed in place
    launch(stream, options, kernel('record_dims'), out);
    expect(ints(out, 4, stream)).toEqual([3, 2, 32, 2]);
    launch(stream, new LaunchConfig({ grid: 5, block: 64 }), kernel('record_dims'), out);
    expect(ints(out, 4, stream)).toEqual([5, 1, 64, 1]);
    launch(stream, { grid: [3, 2], block: [32, 2] }, kernel('record_dims'), out); // a fresh literal that says what one before said
    expect(ints(out, 4, stream)).toEqual([3, 2, 32, 2]);
  });

  it('alternates configs and streams between launches, each launch on its own stream with its own grid', () => {
    using s = device.createStream({ nonBlocking: true });
    using t = device.createStream({ nonBlocking: true });
    const n = 1024;
    using a = device.allocate(n * 4, { stream: s });
    using b = device.allocate(n * 4, { stream: t });
    a.fill(0, { stream: s });
    b.fill(0, { stream: t });
    const whole = new LaunchConfig({ grid: n / 128, block: 128 });
    const half = new LaunchConfig({ grid: n / 256, block: 128 }); // the first half only
    for (let round = 0; round < 3; round++) {
      launch(s, whole, kernel('add_one'), a, n);
      launch(t, half, kernel('add_one'), b, n);
      launch(s, { grid: n / 256, block: 128 }, kernel('add_one'), a, n);
    }
    expect(ints(a, n, s)).toEqual(Array.from({ length: n }, (_, i) => (i < n / 2 ? 6 : 3)));
    expect(ints(b, n, t)).toEqual(Array.from({ length: n }, (_, i) => (i < n / 2 ? 3 : 0)));
  });

  it('packs three scalars of mixed types as the kernel reads them: an i32 number, an f64 and a u64 bigint', () => {
    using stream = device.createStream();
    using out = device.allocate(4 * 8, { stream });
    const c = 2n ** 40n + 9n;
    for (const [a, b] of [
      [7, 1.5],
      [-3, 0.25],
    ] as const) {
      launch(stream, { grid: 1, block: 32 }, kernel('mixed'), out, a, f64(b), c);
      const host = new Float64Array(4);
      out.copyTo(host, { stream });
      stream.synchronize();
      expect([...host]).toEqual([a, b, Number(c >> 32n), Number(c & 0xffffffffn)]);
    }
  });

  it('follows a CUDA array interface answer that moves to another buffer, and refuses one that turns bad before launching', () => {
    using stream = device.createStream();
    const n = 256;
    using first = device.allocate(n * 4, { stream });
    using second = device.allocate(n * 4, { stream });
    first.fill(0, { stream });
    second.fill(0, { stream });
    let target: Buffer = first;
    let version = 3;
    const exporter = {
      [CUDA_ARRAY_INTERFACE]: () => ({
        shape: [n],
        typestr: '<i4',
        data: [target.ptr, false],
        strides: null,
        version,
        stream: null,
      }),
    };
    const config = new LaunchConfig({ grid: n / 128, block: 128 });
    launch(stream, config, kernel('add_one'), exporter, n);
    launch(stream, config, kernel('add_one'), exporter, n); // unchanged: nothing written again
    target = second;
    launch(stream, config, kernel('add_one'), exporter, n); // moved: the new address
    version = 2;
    expect(() => launch(stream, config, kernel('add_one'), exporter, n)).toThrow(LaunchArgumentError);
    expect(() => launch(stream, config, kernel('add_one'), exporter, n)).toThrow(/version 2 is not supported/);
    expect(ints(first, n, stream)).toEqual(new Array<number>(n).fill(2));
    expect(ints(second, n, stream)).toEqual(new Array<number>(n).fill(1)); // the refused launches launched nothing
    const frozen = Object.freeze({
      shape: Object.freeze([n]),
      typestr: '<i4',
      data: Object.freeze([first.ptr, false] as const),
      strides: null,
      version: 3,
    });
    const frozenExporter = { [CUDA_ARRAY_INTERFACE]: () => frozen };
    for (let i = 0; i < 3; i++) launch(stream, config, kernel('add_one'), frozenExporter, n);
    expect(ints(first, n, stream)).toEqual(new Array<number>(n).fill(5));
  });

  it('checks a launch again in the context that is current now: the launch runs there, a stream of the old one is refused', () => {
    using stream = device.createStream();
    using out = device.allocate(64 * 4, { stream });
    out.fill(0, { stream });
    const config = new LaunchConfig({ grid: 1, block: 64 });
    launch(stream, config, kernel('add_one'), out, 64);
    const other = driver.cuCtxCreate(null, 0, device.handle); // current now
    try {
      launch(0n, config, kernel('add_one'), 0n, 0); // n = 0: touches no memory of the other context
      driver.cuCtxSynchronize();
      expect(() => launch(stream, config, kernel('add_one'), 0n, 0)).toThrow(LaunchConfigError);
      expect(() => launch(stream, config, kernel('add_one'), 0n, 0)).toThrow(
        /belongs to context .*not to the current context/,
      );
    } finally {
      driver.cuCtxPopCurrent();
      driver.cuCtxDestroy(other);
    }
    device.setCurrent();
    launch(stream, config, kernel('add_one'), out, 64);
    expect(ints(out, 64, stream)).toEqual(new Array<number>(64).fill(2));
  });

  it('refuses a launch with no current context, and a split launch in a context other than the one prepared', () => {
    using stream = device.createStream();
    using out = device.allocate(64 * 4, { stream });
    out.fill(0, { stream });
    const config = new LaunchConfig({ grid: 1, block: 64 });
    launch(stream, config, kernel('add_one'), out, 64);
    driver.cuCtxSetCurrent(0n);
    try {
      expect(() => launch(stream, config, kernel('add_one'), out, 64)).toThrow(/no current CUDA context/);
    } finally {
      device.setCurrent();
    }
    const plan = new LaunchPlan(kernel('add_one'));
    const prepared = plan.prepare(config, stream.handle);
    plan.pack([out, 64], stream.handle);
    const other = driver.cuCtxCreate(null, 0, device.handle);
    try {
      expect(() => plan.launch(prepared, stream.handle)).toThrow(/is not the one the launch was prepared in/);
    } finally {
      driver.cuCtxPopCurrent();
      driver.cuCtxDestroy(other);
    }
    device.setCurrent();
    plan.launch(prepared, stream.handle);
    expect(ints(out, 64, stream)).toEqual(new Array<number>(64).fill(2));
  });

  it('refuses a stream handle that is not one before launching', () => {
    using stream = device.createStream();
    using out = device.allocate(64 * 4, { stream });
    out.fill(0, { stream });
    const plan = new LaunchPlan(kernel('add_one'));
    const config = new LaunchConfig({ grid: 1, block: 64 });
    plan.run(config, stream.handle, [out, 64]);
    expect(() => plan.run(config, -1n, [out, 64])).toThrow(/the stream must be a CUstream handle/);
    expect(() => plan.run(config, 2n ** 64n, [out, 64])).toThrow(LaunchConfigError);
    expect(ints(out, 64, stream)).toEqual(new Array<number>(64).fill(1));
  });
});
