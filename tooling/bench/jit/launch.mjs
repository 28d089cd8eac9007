// Part 2, the cuda-js side: µs per launch of a JIT kernel with two arrays and
// a scalar, ~nothing to run (grid 1, block 32), the same arguments reused on
// every launch, then one sync. Two kernels, each with the parameter list of
// its nvcc twin in kernels.cu:
//   i32 bound: (a, x, y, n), i < n with n = i32(0)  -> (float, float*, float*, int)
//   y.length:  (a, x, y), i < y.length, 32 elements -> (float, float*, float*, i64)
// each with the arrays as (a) StridedMemoryViews and (b) frozen CUDA array
// interface objects, and with views in a launch batch (core's launchBatch: the
// launches recorded, then submitted in one native call; per launch, recording
// and submission both timed). For reference, core's launch of the nvcc cubin with views.
// usage: node launch.mjs <cubin> <iterations>   (prints one JSON line)
import { readFileSync } from 'node:fs';
import { jit, cuda, f32, i32, i64, Device, StridedMemoryView, ObjectCode, launch, launchBatch } from 'cuda-js';
import { emit, reason } from './bench-util.mjs';

const [cubinPath, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText ?? 100000);
const N = 32;
const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const xBuf = device.allocate(4096);
const yBuf = device.allocate(4096);
xBuf.fill(0);
yBuf.fill(0);
device.synchronize();

const view = (b) => StridedMemoryView.fromPointer(b.ptr, { dtype: 'float32', shape: [N], exporter: b });
// a third-party array that answers the CUDA array interface with one frozen object, as docs/protocols.md asks
const frozen = (b) => {
  const answer = Object.freeze({
    shape: Object.freeze([N]),
    typestr: '<f4',
    data: Object.freeze([b.ptr, false]),
    strides: null,
    version: 3,
    stream: null,
  });
  return { [Symbol.for('cuda.array_interface')]: () => answer };
};
const arrays = { views: [view(xBuf), view(yBuf)], 'frozen CAI': [frozen(xBuf), frozen(yBuf)] };

const axpyN = jit((a, x, y, n) => {
  const i = cuda.grid(1);
  if (i < n) y[i] = a * x[i] + y[i];
});
const axpyLen = jit((a, x, y) => {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i] + y[i];
});

const options = { grid: 1, block: 32, stream };
const a = f32(2);
const n0 = i32(0);

function timed(launchOnce) {
  for (let i = 0; i < 2000; i++) launchOnce();
  stream.synchronize();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) launchOnce();
  const t1 = process.hrtime.bigint();
  stream.synchronize();
  return Number(t1 - t0) / 1000 / iterations;
}

/** µs per launch of `iterations` launches recorded into one launch batch and submitted (both timed). */
function timedBatch(launchIn) {
  launchBatch(stream, (batch) => {
    for (let i = 0; i < 2000; i++) launchIn(batch);
  });
  stream.synchronize();
  const t0 = process.hrtime.bigint();
  launchBatch(stream, (batch) => {
    for (let i = 0; i < iterations; i++) launchIn(batch);
  });
  const t1 = process.hrtime.bigint();
  stream.synchronize();
  return Number(t1 - t0) / 1000 / iterations;
}

const results = {};
const errors = {};
function measure(name, launchOnce) {
  try {
    results[name] = timed(launchOnce);
  } catch (error) {
    errors[name] = reason(error);
  }
}

for (const [form, [x, y]] of Object.entries(arrays)) {
  measure(`jit, ${form}, i32 bound`, () => axpyN.launch(options, a, x, y, n0));
  measure(`jit, ${form}, y.length`, () => axpyLen.launch(options, a, x, y));
}
{
  const [x, y] = arrays.views;
  const inBatch = (batch) => ({ grid: 1, block: 32, batch });
  try {
    results['jit in a launch batch, views, i32 bound'] = timedBatch((batch) =>
      axpyN.launch(inBatch(batch), a, x, y, n0),
    );
    results['jit in a launch batch, views, y.length'] = timedBatch((batch) => axpyLen.launch(inBatch(batch), a, x, y));
  } catch (error) {
    errors['jit in a launch batch'] = reason(error);
  }
}
// the same launches without the JIT: core's launch of the nvcc kernels
try {
  const code = ObjectCode.fromCubin(new Uint8Array(readFileSync(cubinPath)));
  const k = code.getKernel('k');
  const kLen = code.getKernel('k_len');
  const [xv, yv] = arrays.views;
  const n32 = i64(N);
  const config = { grid: 1, block: 32 };
  measure('core launch of the nvcc kernel, views, i32 bound', () => launch(stream, config, k, a, xv, yv, n0));
  measure('core launch of the nvcc kernel, views, y.length', () => launch(stream, config, kLen, a, xv, yv, n32));
} catch (error) {
  errors['core launch of the nvcc kernel'] = reason(error);
}
emit({ results, errors, iterations, compileCount: axpyN.compileCount + axpyLen.compileCount });
