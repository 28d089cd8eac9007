// The cuda-js side of the launch benchmark: µs per launch of the empty kernels
// k0, k1, k4, k16 (N float* + int), through core's launch with the arrays passed
// as bigint pointers, Buffers, StridedMemoryViews and foreign protocol objects,
// and through the bindings' fast path.
// usage: node arrays.mjs <cubin> <iterations>   (prints JSON)
import { readFileSync } from 'node:fs';
import { driver } from '@cuda-js/bindings';
import { Device, LaunchConfig, launch } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { ARRAY_COUNTS } from './kernels.mjs';

const [cubinPath, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText ?? 200000);
const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const library = driver.cuLibraryLoadData(new Uint8Array(readFileSync(cubinPath)));
const N = 1024;
const buffers = Array.from({ length: 16 }, () => device.allocate(4096, { stream }));
// a third-party array that builds a new answer on each call
const foreign = buffers.map((b) => ({
  [Symbol.for('cuda.array_interface')]: () => ({ shape: [N], typestr: '<f4', data: [b.ptr, false], strides: null, version: 3, stream: null }),
}));
// one that returns the same frozen answer each time, as docs/protocols.md asks
const frozenForeign = buffers.map((b) => {
  const answer = Object.freeze({ shape: Object.freeze([N]), typestr: '<f4', data: Object.freeze([b.ptr, false]), strides: null, version: 3, stream: null });
  return { [Symbol.for('cuda.array_interface')]: () => answer };
});
const views = foreign.map((f) => StridedMemoryView.fromAny(f, { stream: -1 }));
const config = new LaunchConfig({ grid: 1, block: 32 });

function timed(launchOnce) {
  for (let i = 0; i < 2000; i++) launchOnce();
  stream.synchronize();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) launchOnce();
  const t1 = process.hrtime.bigint();
  stream.synchronize();
  return Number(t1 - t0) / 1000 / iterations;
}

const results = {};
const put = (form, count, value) => ((results[form] ??= {})[count] = value);
for (const count of ARRAY_COUNTS) {
  const kernel = { handle: driver.cuLibraryGetKernel(library, `k${count}`), name: `k${count}` };
  const pointers = buffers.slice(0, count).map((b) => b.ptr);
  // the bindings' fast path: the parameter buffer is written once, each launch is one native call
  const offsets = Array.from({ length: count + 1 }, (_, i) => i * 8);
  const paramBuffer = new ArrayBuffer((count + 1) * 8);
  const dv = new DataView(paramBuffer);
  pointers.forEach((p, i) => dv.setBigUint64(i * 8, p, true));
  dv.setInt32(count * 8, N, true);
  const params = driver.createKernelParams(paramBuffer, offsets);
  const s = stream.handle;
  put(
    'bindings fast path',
    count,
    timed(() => driver.cuLaunchKernel(kernel.handle, 1, 1, 1, 32, 1, 1, 0, s, params)),
  );
  const viaPointers = [...pointers, N];
  put(
    'core launch, bigint pointers',
    count,
    timed(() => launch(stream, config, kernel, ...viaPointers)),
  );
  const viaBuffers = [...buffers.slice(0, count), N];
  put(
    'core launch, Buffer',
    count,
    timed(() => launch(stream, config, kernel, ...viaBuffers)),
  );
  const viaViews = [...views.slice(0, count), N];
  put(
    'core launch, StridedMemoryView',
    count,
    timed(() => launch(stream, config, kernel, ...viaViews)),
  );
  const viaProtocol = [...foreign.slice(0, count), N];
  put(
    'core launch, protocol object (CAI, new answer per call)',
    count,
    timed(() => launch(stream, config, kernel, ...viaProtocol)),
  );
  const viaFrozen = [...frozenForeign.slice(0, count), N];
  put(
    'core launch, protocol object (CAI, frozen answer)',
    count,
    timed(() => launch(stream, config, kernel, ...viaFrozen)),
  );
}
process.stdout.write(JSON.stringify({ results }) + '\n');
