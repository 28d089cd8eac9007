import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { driver } from '@cuda-js/bindings';
import { Linker, ObjectCode, Program } from '@cuda-js/program';
import { describeGpu } from '@cuda-js/test-support';
import { ptxasPath } from '@cuda-js/test-support/toolchain';
import { beforeAll, expect, it } from 'vitest';
import {
  type Buffer,
  type Device,
  type Graph,
  GraphArgumentError,
  GraphBuilder,
  GraphDefinition,
  GraphStateError,
  GraphUpdateError,
  launch,
  LaunchConfig,
  u64,
} from '../index.js';
import { gpuTestKernels } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void add_one(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
extern "C" __global__ void set_value(int* x, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
extern "C" __global__ void add_into(int* out, const int* a, const int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
extern "C" __global__ void spin(unsigned long long cycles) {
  long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
`;

// Kernels that set a condition from the device: cudaGraphSetConditional is in the device runtime (libcudadevrt.a).
const CONDITION_SOURCE = String.raw`
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);
extern "C" __global__ void loop_step(unsigned long long handle, int* counter, int limit) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int c = ++*counter;
    cudaGraphSetConditional(handle, c < limit ? 1u : 0u);
  }
}
extern "C" __global__ void set_condition(unsigned long long handle, const int* flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(handle, *flag != 0 ? 1u : 0u);
}
`;

/** libcudadevrt.a of the CUDA toolkit, where there is one. */
function findDeviceRuntime(): string | undefined {
  // the toolkit of the ptxas found, then the usual places
  const roots = [
    ptxasPath && dirname(dirname(ptxasPath)),
    process.env['CUDA_HOME'],
    process.env['CUDA_PATH'],
    '/usr/local/cuda',
  ].filter((r): r is string => !!r);
  for (const root of roots) {
    for (const lib of ['lib64', 'lib', 'targets/x86_64-linux/lib', 'targets/sbsa-linux/lib']) {
      const path = join(root, lib, 'libcudadevrt.a');
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}

const N = 1000;
const CONFIG = new LaunchConfig({ grid: Math.ceil(N / 256), block: 256 });

describeGpu('graphs on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, ['add_one', 'set_value', 'add_into', 'spin']);
  let device: Device;
  let add_one: { handle: bigint; name: string };
  let set_value: { handle: bigint; name: string };
  let add_into: { handle: bigint; name: string };
  let spin: { handle: bigint; name: string };
  const read = (buffer: Buffer, stream: ReturnType<Device['createStream']>): Int32Array => {
    const out = new Int32Array(buffer.size / 4);
    buffer.copyTo(out, { stream });
    return out;
  };
  const every = (values: Int32Array, expected: number): boolean => values.every((v) => v === expected);

  beforeAll(() => {
    device = gpu.device;
    [add_one, set_value, add_into, spin] = [
      gpu.kernel('add_one'),
      gpu.kernel('set_value'),
      gpu.kernel('add_into'),
      gpu.kernel('spin'),
    ];
  });

  it('captures a fill, kernels and a copy, runs nothing while capturing, and replays them', () => {
    using stream = device.createStream();
    using a = device.allocate(N * 4, { stream });
    using b = device.allocate(N * 4, { stream });
    using counter = device.allocate(4, { stream });
    counter.fill(0, { stream });
    b.fill(0, { stream });
    stream.synchronize();
    using builder = device.createGraphBuilder();
    expect(builder.isBuilding).toBe(false);
    builder.beginBuilding();
    expect(builder.isBuilding).toBe(true);
    a.fill(0, { stream: builder });
    launch(builder, CONFIG, add_one, a, N);
    launch(builder, CONFIG, add_one, a, N);
    a.copyTo(b, { stream: builder });
    launch(builder, { grid: 1, block: 1 }, add_one, counter, 1);
    builder.retain(b);
    builder.endBuilding();
    expect(builder.isBuilding).toBe(false);
    expect(every(read(counter, stream), 0)).toBe(true);
    expect(every(read(b, stream), 0)).toBe(true);
    using graph = builder.complete();
    expect(graph.resourceCount).toBe(4); // the kernel, a, counter, b
    graph.upload(stream);
    for (let r = 0; r < 3; r++) graph.launch(stream);
    expect(every(read(b, stream), 2)).toBe(true);
    expect([...read(counter, stream)]).toEqual([3]);
    // what the graph uses must stay open
    a.close();
    expect(() => graph.launch(stream)).toThrow(GraphStateError);
    expect(() => graph.launch(stream)).toThrow(/Graph\.launch: a Buffer that the graph uses was closed/);
    // a builder builds once
    expect(() => builder.beginBuilding()).toThrow(/a builder builds once/);
    expect(() => launch(builder, CONFIG, add_one, b, N)).toThrow(
      /launch: expected a GraphBuilder that is building; this one is ended/,
    );
  });

  it("captures on a stream of the device through stream.createGraphBuilder() (cuda.core's Stream.create_graph_builder)", () => {
    using stream = device.createStream({ nonBlocking: true });
    using x = device.allocate(N * 4, { stream });
    x.fill(0, { stream });
    stream.synchronize();
    using builder = stream.createGraphBuilder();
    expect(builder.stream).toBe(stream);
    builder.beginBuilding();
    launch(builder, CONFIG, add_one, x, N);
    launch(stream, CONFIG, add_one, x, N); // the same capture: the stream is the builder's
    builder.endBuilding();
    expect(every(read(x, stream), 0)).toBe(true); // captured, not run
    using graph = builder.complete();
    graph.launch(stream);
    graph.launch(stream);
    expect(every(read(x, stream), 4)).toBe(true);
    builder.close();
    expect(stream.closed).toBe(false); // the builder borrowed the stream
  });

  it('updates a graph from a builder with a changed argument, and refuses one of another shape', () => {
    using stream = device.createStream();
    using out = device.allocate(N * 4, { stream });
    const record = (value: number): GraphBuilder => {
      const builder = device.createGraphBuilder().beginBuilding();
      launch(builder, CONFIG, set_value, out, N, value);
      return builder.endBuilding();
    };
    using first = record(1);
    using graph = first.complete();
    graph.launch(stream);
    expect(every(read(out, stream), 1)).toBe(true);
    using second = record(7);
    graph.update(second);
    graph.launch(stream);
    expect(every(read(out, stream), 7)).toBe(true);
    using other = device.createGraphBuilder().beginBuilding();
    launch(other, CONFIG, set_value, out, N, 9);
    launch(other, CONFIG, add_one, out, N);
    other.endBuilding();
    expect(() => graph.update(other)).toThrow(GraphUpdateError);
    expect(() => graph.update(other)).toThrow(/differs from the graph in more than node parameters/);
    graph.update(second);
    graph.launch(stream);
    expect(every(read(out, stream), 7)).toBe(true);
    using unfinished = device.createGraphBuilder();
    expect(() => graph.update(unfinished)).toThrow(
      /Graph\.update: expected a GraphBuilder that has ended building; this one is not started/,
    );
    expect(() => graph.update({} as never)).toThrow(GraphArgumentError);
  });

  it('replays a graph of 1000 kernel nodes', () => {
    using stream = device.createStream();
    using x = device.allocate(N * 4, { stream });
    using builder = device.createGraphBuilder().beginBuilding();
    for (let i = 0; i < 1000; i++) launch(builder, CONFIG, add_one, x, N);
    builder.endBuilding();
    expect(builder.graphDefinition.nodeCount).toBe(1000);
    using graph = builder.complete({ uploadStream: stream });
    expect(graph.resourceCount).toBe(2);
    x.fill(0, { stream });
    for (let r = 0; r < 5; r++) graph.launch(stream);
    expect(every(read(x, stream), 5000)).toBe(true);
  });

  it('forks and joins builders into concurrent branches', () => {
    using stream = device.createStream();
    using a = device.allocate(N * 4, { stream });
    using b = device.allocate(N * 4, { stream });
    using c = device.allocate(N * 4, { stream });
    using out = device.allocate(N * 4, { stream });
    using builder = device.createGraphBuilder().beginBuilding();
    launch(builder, CONFIG, set_value, a, N, 1);
    const [main, left, right] = builder.split(3);
    expect(main).toBe(builder);
    expect(left!.isJoinRequired).toBe(true);
    expect(builder.isJoinRequired).toBe(false);
    expect(() => left!.endBuilding()).toThrow(/ends by being joined into its origin/);
    launch(left!, CONFIG, add_into, b, a, a, N); // b = 2
    launch(right!, CONFIG, set_value, c, N, 10);
    launch(right!, CONFIG, add_into, c, c, a, N); // c = 11
    expect(() => builder.endBuilding()).toThrow(/2 builder\(s\) split from this one are not joined/);
    expect(GraphBuilder.join(left!, builder, right!)).toBe(builder);
    expect(left!.closed).toBe(true);
    expect(() => launch(left!, CONFIG, add_one, b, N)).toThrow(GraphStateError);
    launch(builder, CONFIG, add_into, out, b, c, N); // out = 13
    builder.endBuilding();
    expect(builder.graphDefinition.nodeCount).toBe(5);
    using graph = builder.complete();
    graph.launch(stream);
    expect(every(read(out, stream), 13)).toBe(true);
  });

  it('runs host callbacks in order, each after the work before it', async () => {
    using stream = device.createStream();
    const cycles = BigInt(device.attributes.clockRate) * 50n; // ≥ 50 ms at the highest clock
    const calls: string[] = [];
    const times: number[] = [];
    let allDone!: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    using builder = device.createGraphBuilder().beginBuilding();
    builder.callback(() => calls.push('first'));
    launch(builder, { grid: 1, block: 1 }, spin, u64(cycles));
    builder.callback(() => (calls.push('second'), times.push(performance.now())));
    builder.callback(() => {
      calls.push('third');
      if (calls.length === 9) allDone();
    });
    builder.endBuilding();
    using graph = builder.complete();
    stream.synchronize();
    const start = performance.now();
    for (let r = 0; r < 3; r++) graph.launch(stream);
    await done;
    await stream.synchronized();
    expect(calls).toEqual(['first', 'second', 'third', 'first', 'second', 'third', 'first', 'second', 'third']);
    expect(times[0]! - start).toBeGreaterThanOrEqual(45);
    expect(times[2]! - start).toBeGreaterThanOrEqual(3 * 45);
    expect(() => builder.callback(() => undefined)).toThrow(GraphStateError);
  });

  it('builds an explicit graph of kernel, copy, fill, allocation, event, host and child nodes', async () => {
    using stream = device.createStream();
    using a = device.allocate(N * 4, { stream });
    using b = device.allocate(N * 4, { stream });
    using c = device.allocate(N * 4, { stream });
    using d = device.allocate(N * 4, { stream });
    using out = device.allocate(N * 4, { stream });
    using event = device.createEvent();
    const hostCalls: number[] = [];
    using def = new GraphDefinition({ device });
    const zeroed = def.memset(a, 0, { width: 4 });
    const one = zeroed.launch(CONFIG, add_one, a, N); // a = 1
    const copied = one.memcpy(b, a); // b = 1
    using child = new GraphDefinition({ device });
    child.launch(CONFIG, add_one, b, N);
    const embedded = copied.embed(child); // b = 2
    const five = def.memset(c, 5, { width: 4 }); // c = 5
    const summed = embedded.join(five).launch(CONFIG, add_into, out, b, c, N); // out = 7
    const alloc = summed.allocate(N * 4);
    expect(alloc.ptr).toBeGreaterThan(0n);
    const filled = alloc.memset(alloc.ptr, 3, { width: 4, count: N });
    filled
      .memcpy(d, alloc.ptr, N * 4)
      .deallocate(alloc)
      .record(event)
      .callback(() => hostCalls.push(hostCalls.length));
    expect(def.nodeCount).toBe(13);
    expect(() => def.memcpy(a, new Int32Array(N) as never, N * 4)).toThrow(/pageable host memory/);
    expect(() => zeroed.join(child.empty())).toThrow(/belongs to another graph definition/);
    using graph = def.instantiate();
    graph.launch(stream);
    event.synchronize();
    expect(event.isDone).toBe(true);
    expect(every(read(out, stream), 7)).toBe(true);
    expect(every(read(b, stream), 2)).toBe(true);
    expect(every(read(d, stream), 3)).toBe(true);
    // an event wait node: the graph's kernel waits for work on another stream
    using other = device.createStream({ nonBlocking: true });
    using waiting = new GraphDefinition({ device });
    waiting.wait(event).launch(CONFIG, add_one, out, N);
    using waiter = waiting.instantiate();
    launch(other, { grid: 1, block: 1 }, spin, u64(BigInt(device.attributes.clockRate) * 50n));
    launch(other, CONFIG, set_value, out, N, 20);
    event.record(other);
    waiter.launch(stream);
    await stream.synchronized();
    expect(every(read(out, stream), 21)).toBe(true);
    await other.synchronized();
    expect(hostCalls).toEqual([0]);
    // the definition holds its Buffers and kernels
    expect(def.resourceCount).toBeGreaterThanOrEqual(7);
  });

  it('runs an if node, and an if/else and a switch where the driver has them, chosen by the default value', () => {
    using stream = device.createStream();
    using x = device.allocate(N * 4, { stream });
    for (const [initial, expected] of [
      [1, 42],
      [0, -1],
    ] as const) {
      x.fill(0xff, { stream });
      using builder = device.createGraphBuilder().beginBuilding();
      const condition = builder.createCondition(initial);
      expect(condition.defaultValue).toBe(initial);
      const body = builder.ifThen(condition);
      expect(body.isConditionalBody).toBe(true);
      body.beginBuilding();
      launch(body, CONFIG, set_value, x, N, 42);
      body.endBuilding();
      expect(() => body.complete()).toThrow(/a conditional body is instantiated with the graph that holds its node/);
      builder.endBuilding();
      using graph = builder.complete();
      graph.launch(stream);
      expect(every(read(x, stream), expected)).toBe(true);
    }
    if (driver.cuDriverGetVersion() < 12080) {
      console.log('graph.gpu.test.ts: if/else and switch nodes need a CUDA 12.8 driver; skipped');
      return;
    }
    using def = new GraphDefinition({ device });
    const condition = def.createCondition(0);
    const ifElse = def.ifElse(condition);
    expect(ifElse.bodies.length).toBe(2);
    ifElse.bodies[0]!.launch(CONFIG, set_value, x, N, 1);
    ifElse.bodies[1]!.launch(CONFIG, set_value, x, N, 2);
    const which = def.createCondition(2);
    const cases = ifElse.switch(which, 3);
    cases.bodies.forEach((body, i) =>
      body.launch(CONFIG, add_into, x, x, x, N).launch(CONFIG, set_value, x, N, 10 * (i + 1)),
    );
    using elsewhere = new GraphDefinition({ device });
    expect(() => def.ifThen(elsewhere.createCondition(1))).toThrow(/was made for another graph/);
    using graph = def.instantiate();
    graph.launch(stream);
    expect(every(read(x, stream), 30)).toBe(true);
  });

  const deviceRuntime = findDeviceRuntime();
  it.skipIf(deviceRuntime === undefined)(
    `runs while and if nodes whose condition kernels set (libcudadevrt.a${deviceRuntime === undefined ? ' not found: skipped' : ''})`,
    () => {
      using stream = device.createStream();
      const ptx = new Program(CONDITION_SOURCE, 'c++', { arch: device.arch, relocatableDeviceCode: true }).compile(
        'ptx',
      );
      using linked = new Linker([ptx, ObjectCode.fromLibrary(deviceRuntime!)], { arch: device.arch }).link('cubin');
      const loopStep = linked.getKernel('loop_step');
      const setCondition = linked.getKernel('set_condition');
      using counter = device.allocate(4, { stream });
      using flag = device.allocate(4, { stream });
      using x = device.allocate(N * 4, { stream });
      // while, captured: the body runs until the kernel in it clears the condition
      using builder = device.createGraphBuilder().beginBuilding();
      counter.fill(0, { stream: builder });
      const loop = builder.createCondition(1);
      const body = builder.whileLoop(loop).beginBuilding();
      launch(body, { grid: 1, block: 1 }, loopStep, loop, counter, 10);
      body.endBuilding();
      builder.endBuilding();
      using graph: Graph = builder.complete();
      for (let r = 0; r < 2; r++) {
        graph.launch(stream);
        expect([...read(counter, stream)]).toEqual([10]);
      }
      // if, explicit: a kernel sets the condition from a flag in device memory
      using def = new GraphDefinition({ device });
      const chosen = def.createCondition();
      const ifNode = def.launch({ grid: 1, block: 1 }, setCondition, chosen, flag).ifThen(chosen);
      ifNode.body.launch(CONFIG, add_one, x, N);
      using chooser = def.instantiate();
      x.fill(0, { stream });
      for (const value of [1, 0, 1]) {
        flag.copyFrom(Int32Array.of(value), { stream });
        chooser.launch(stream);
      }
      expect(every(read(x, stream), 2)).toBe(true);
    },
  );

  it('refuses what a builder cannot do in its state, by name', () => {
    using builder = device.createGraphBuilder();
    expect(() => builder.endBuilding()).toThrow(/expected a GraphBuilder that is building; this one is not started/);
    expect(() => builder.complete()).toThrow(/expected a GraphBuilder that has ended building/);
    expect(() => builder.split(2)).toThrow(GraphStateError);
    expect(() => builder.createCondition(1)).toThrow(GraphStateError);
    expect(() => builder.beginBuilding('fast' as never)).toThrow(/mode must be one of global, thread_local, relaxed/);
    builder.beginBuilding('thread_local');
    expect(() => builder.split(1)).toThrow(/count must be an integer from 2 to 256/);
    expect(() => builder.split(1e6)).toThrow(/count must be an integer from 2 to 256/); // issue 20: this ran for minutes
    expect(() => builder.beginBuilding()).toThrow(GraphStateError);
    builder.close();
    builder.close();
    expect(builder.closed).toBe(true);
    // a capture invalidated by a synchronous call is reported, and the stream is usable again
    using stream = device.createStream();
    using x = device.allocate(16, { stream });
    stream.synchronize();
    using borrowed = GraphBuilder.fromStream(stream).beginBuilding('global');
    expect(() => borrowed.stream.synchronize()).toThrow(/CUDA_ERROR_STREAM_CAPTURE_/);
    expect(() => borrowed.isBuilding).toThrow(/the capture was invalidated/);
    launch(stream, { grid: 1, block: 1 }, add_one, x, 1);
    stream.synchronize();
    expect(stream.closed).toBe(false);
  });
});
