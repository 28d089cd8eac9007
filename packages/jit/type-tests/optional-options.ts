// Options whose values may be undefined, as a user's code has them under
// exactOptionalPropertyTypes (which `tsc --init` turns on): `{ stream:
// maybeStream }` with `maybeStream: Stream | undefined` type-checks wherever
// the stack takes a stream or an option, and undefined is taken as absent at
// run time (type-tests.test.ts runs this in the simulator).
import { LaunchConfig } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { type JitTarget, deviceArray, jit, toDevice, cuda } from '@cuda-js/jit';

const scale = jit(
  (a: number, x: Float32Array) => {
    const i = cuda.grid(1);
    if (i < x.length) x[i] = a * x[i]!;
  },
  { target: 'simulator' },
);

/** Every launch and maker given options of possibly-undefined values; `maybeStream` undefined runs on the default stream. */
export function withMaybeUndefined(
  maybeStream: Stream | undefined,
  maybeShared: number | undefined,
  maybeTarget: JitTarget | undefined,
): number[] {
  const x = Float32Array.from([1, 2, 3, 4]);
  scale.launch({ grid: 1, block: 4, stream: maybeStream, sharedMemory: maybeShared, cluster: undefined }, 2, x);
  scale.forall(4, { stream: maybeStream })(2, x);
  const config = new LaunchConfig({ grid: 1, block: 4, sharedMemory: maybeShared, cooperative: undefined });
  const target = maybeTarget ?? 'simulator';
  const onDevice = toDevice(x, { stream: maybeStream, target });
  const zeros = deviceArray(4, 'float32', { stream: maybeStream, target, device: undefined });
  const view = StridedMemoryView.fromAny(x, { stream: undefined, writable: undefined }).view({
    shape: undefined,
    dtype: undefined,
  });
  return [...x, config.block[0], onDevice.shape[0]!, zeros.shape[0]!, view.shape[0]!];
}
