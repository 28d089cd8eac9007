// The GPU parts' common steps, the same for the JIT kernel and the nvcc one
// (and, in numba_breadth.py, for numba-cuda).
import { readFileSync } from 'node:fs';
import { Event, ObjectCode } from 'cuda-js';

/**
 * The nvcc anchors' cubin, from the path run.sh gives; `none:<why>` where
 * run.sh has none (nvcc missing or failed), which throws with the reason.
 */
export function loadCubin(arg) {
  if (arg === undefined || arg.startsWith('none:'))
    throw new Error(`no cubin of kernels.cu: nvcc ${arg === undefined ? 'was not run' : arg.slice(5)}`);
  return ObjectCode.fromCubin(new Uint8Array(readFileSync(arg)));
}

/**
 * Times kernels: each sample is one launch that fills the stream's queue,
 * then `batch` launches between two cuEvents, so that the host's launch
 * latency stays out of the window and only the kernels' own time is
 * counted; ms per launch = elapsed / batch. The kernels take turns sample by
 * sample. Gives { name: [ms per launch, one a sample] }.
 */
export function timeKernels(kernels, { stream, reps, batch }) {
  const start = Event.create({ timing: true });
  const end = Event.create({ timing: true });
  const samples = Object.fromEntries(Object.keys(kernels).map((name) => [name, []]));
  for (let r = 0; r < reps; r++) {
    for (const [name, run] of Object.entries(kernels)) {
      run();
      start.record(stream);
      for (let b = 0; b < batch; b++) run();
      end.record(stream);
      end.synchronize();
      samples[name].push(Event.elapsedTime(start, end) / batch);
    }
  }
  return samples;
}
