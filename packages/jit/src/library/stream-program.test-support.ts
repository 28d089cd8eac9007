// A program written for the GPU with streams, stream-ordered copies and
// timing events, and its plain-JS reference: run by the simulator's
// stream tests (CUDA_JS_SIMULATOR=1, unchanged) and on the GPU.
import { f32 } from '@cuda-js/core';
import { cuda } from '../cuda.js';
import { jit, type JitTarget } from '../jit.js';
import { deviceArrayLike, toDevice } from './device-arrays.js';
import { event, eventElapsedTime, stream } from './stream-makers.js';

/** A GPU program: chunks copied, scaled and copied back on two streams, ordered by an event, timed. Gives the result and the time. */
export async function chunkedProgram(target?: JitTarget): Promise<{ result: Float32Array; ms: number }> {
  const scale = jit(
    (a: number, x: Float32Array, y: Float32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) y[i] = a * x[i]! + 1;
    },
    target === undefined ? {} : { target },
  );
  const chunk = 1000;
  const host = Float32Array.from({ length: 4 * chunk }, (_, i) => i);
  const result = new Float32Array(host.length);
  const opts = target === undefined ? {} : { target };
  using s0 = stream(opts);
  using s1 = stream(opts);
  using start = event(opts);
  using end = event(opts);
  start.record(s0);
  for (let c = 0; c < 4; c++) {
    const s = c % 2 === 0 ? s0 : s1;
    const x = toDevice(host.subarray(c * chunk, (c + 1) * chunk), { ...opts, stream: s });
    const y = deviceArrayLike(x, { ...opts, stream: s });
    scale.launch({ grid: Math.ceil(chunk / 256), block: 256, stream: s }, f32(2), x, y);
    y.copyToHost(result.subarray(c * chunk, (c + 1) * chunk), { stream: s });
  }
  const done = s1.record();
  s0.wait(done);
  end.record(s0);
  await s0.synchronized();
  end.synchronize();
  return { result, ms: eventElapsedTime(start, end) };
}

export function chunkedReference(): number[] {
  return Array.from({ length: 4000 }, (_, i) => Math.fround(2 * i + 1));
}
