// The Worker side of host-function-lifetime-gpu.mjs: behind a spin kernel, on
// the main thread's context, one JS host function of `form` whose call the
// driver makes later; then says so (and gives its graph, where it made one).
import { parentPort, workerData } from 'node:worker_threads';

const { driver } = await import(workerData.index);
const { form, context, stream, spin, cycles, destroyGraphHere } = workerData;
const ran = new Int32Array(workerData.ran);
const bump = () => Atomics.add(ran, 0, 1); // only if the driver calls before the Worker is gone
driver.cuInit(0);
driver.cuCtxSetCurrent(context);
const args = new BigUint64Array([cycles]);
const params = driver.createKernelParams(args.buffer, [0], [8]); // the driver copies the values at each launch
const launchSpin = (s) => driver.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, params);
if (form === 'cuLaunchHostFunc') {
  launchSpin(stream);
  driver.cuLaunchHostFunc(stream, bump);
  parentPort.postMessage({});
} else if (form === 'cuStreamAddCallback') {
  launchSpin(stream);
  driver.cuStreamAddCallback(stream, bump, 0);
  parentPort.postMessage({});
} else if (form === 'graph') {
  // a graph whose host function was captured here, launched twice on the main thread's stream
  const capture = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
  driver.cuStreamBeginCapture(capture, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  launchSpin(capture);
  driver.cuLaunchHostFunc(capture, bump);
  const graph = driver.cuStreamEndCapture(capture);
  driver.cuStreamDestroy(capture);
  const exec = driver.cuGraphInstantiate(graph, 0);
  driver.cuGraphLaunch(exec, stream);
  driver.cuGraphLaunch(exec, stream);
  if (destroyGraphHere) {
    // the driver keeps what pending launches need, and releases the host function after them
    driver.cuGraphExecDestroy(exec);
    driver.cuGraphDestroy(graph);
    parentPort.postMessage({});
  } else {
    parentPort.postMessage({ graph, exec }); // destroyed by the main thread after the Worker is gone
  }
} else {
  throw new Error(`unknown form ${form}`);
}
