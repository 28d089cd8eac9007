// Run as a child process by host-function-lifetime.gpu.test.ts: Workers that
// enqueue a JS host function behind a spin kernel (cuLaunchHostFunc,
// cuStreamAddCallback, a graph with a captured host function) and are
// terminated at once, before, while or after the driver calls it; the main
// thread then drains the stream and goes on. A use after free is a crash,
// which the test sees as the exit status. Prints one JSON line at the end.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const dist = join(import.meta.dirname, '..', '..', 'dist');
const index = join(dist, 'index.js');
const { driver, nvrtc } = await import(index);
const { native } = await import(join(dist, 'native.js'));
const records = () => native.__hostCallCountsForTests().live;

driver.cuInit(0);
const dev = driver.cuDeviceGet(0);
const context = driver.cuDevicePrimaryCtxRetain(dev);
driver.cuCtxSetCurrent(context);
const attribute = (name) => driver.cuDeviceGetAttribute(driver.CUdevice_attribute[name], dev);
const sm =
  attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR') * 10 +
  attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR');
const cyclesPerMs = BigInt(attribute('CU_DEVICE_ATTRIBUTE_CLOCK_RATE')); // kHz
const prog = nvrtc.nvrtcCreateProgram(
  'extern "C" __global__ void spin(unsigned long long c) { long long s = clock64(); while ((unsigned long long)(clock64() - s) < c) {} }',
  'spin.cu',
  [],
  [],
);
nvrtc.nvrtcCompileProgram(prog, [`--gpu-architecture=sm_${sm}`]);
const library = driver.cuLibraryLoadData(nvrtc.nvrtcGetCUBIN(prog));
nvrtc.nvrtcDestroyProgram(prog);
const spin = driver.cuKernelGetFunction(driver.cuLibraryGetKernel(library, 'spin'));
const stream = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
const before = records();

/** One Worker of `form`, terminated as soon as it has enqueued; the main thread then drains the stream. */
async function round(form, spinMs, destroyGraphHere) {
  const ran = new SharedArrayBuffer(4);
  const worker = new Worker(new URL('./host-function-lifetime-worker.mjs', import.meta.url), {
    workerData: { index, form, context, stream, spin, cycles: cyclesPerMs * BigInt(spinMs), destroyGraphHere, ran },
  });
  const made = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  await driver.cuStreamSynchronizeAsync(stream); // the driver calls the host functions meanwhile, or has already
  if (made.exec !== undefined) {
    driver.cuGraphExecDestroy(made.exec); // the last owner of the graph's host function: released with its Worker gone
    driver.cuGraphDestroy(made.graph);
  }
  return new Int32Array(ran)[0];
}

const ROUNDS = 20;
const results = {};
const start = Date.now();
for (const form of ['cuLaunchHostFunc', 'cuStreamAddCallback', 'graph']) {
  let ranInWorkers = 0;
  for (let i = 0; i < ROUNDS; i++) {
    // 200 ms: the Worker is long gone when the driver calls; shorter: the call lands before, during or after its teardown
    const spinMs = i % 4 === 0 ? 200 : (i * 7) % 30;
    ranInWorkers += await round(form, spinMs, i % 2 === 1);
  }
  results[form] = { rounds: ROUNDS, ranInWorkers };
}
const workersMs = Date.now() - start;

// The main thread's own host functions still run, on the same stream, after a spin.
const params = driver.createKernelParams(new BigUint64Array([cyclesPerMs * 20n]).buffer, [0], [8]);
driver.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, params);
const hostFunc = new Promise((resolve) => driver.cuLaunchHostFunc(stream, () => resolve('ran')));
const callback = new Promise((resolve) =>
  driver.cuStreamAddCallback(stream, (s, status) => resolve([s === stream, status]), 0),
);
const capture = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
driver.cuStreamBeginCapture(capture, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
let graphCalls = 0;
driver.cuLaunchHostFunc(capture, () => graphCalls++);
const graph = driver.cuStreamEndCapture(capture);
driver.cuStreamDestroy(capture);
const exec = driver.cuGraphInstantiate(graph, 0);
driver.cuGraphLaunch(exec, stream);
driver.cuGraphLaunch(exec, stream);
const main = { hostFunc: await hostFunc, callback: await callback };
await driver.cuStreamSynchronizeAsync(stream);
await new Promise((resolve) => setTimeout(resolve, 20)); // the graph's calls were queued before the stream drained
main.graphCalls = graphCalls;
driver.cuGraphExecDestroy(exec);
driver.cuGraphDestroy(graph);

// Every record is freed, the Workers' ones included (graph host functions once the driver destroys their user objects).
const until = Date.now() + 10_000;
while (records() !== before && Date.now() < until) {
  driver.cuCtxSynchronize();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
driver.cuStreamDestroy(stream);
driver.cuLibraryUnload(library);
console.log(JSON.stringify({ results, workersMs, main, recordsBefore: before, recordsAfter: records() }));
