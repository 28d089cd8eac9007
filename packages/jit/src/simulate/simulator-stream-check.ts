// What a simulated launch, copy or event record checks of the stream it is
// given: a closed simulator stream is refused, as a closed Stream is on the GPU.
import type { StreamArgument } from '@cuda-js/streams';

/** The mark that simulator streams carry, so that this check needs no import of their class. */
export const SIMULATOR_STREAM: unique symbol = Symbol('cuda-js.simulatorStream');

/** Throws for a closed simulator stream; any other stream is taken (the simulator orders nothing). */
export function checkSimulatorStream(stream: StreamArgument | undefined, what: string): void {
  if (stream === null || typeof stream !== 'object' || !(SIMULATOR_STREAM in stream)) return;
  (stream as unknown as { readonly [SIMULATOR_STREAM]: (what: string) => void })[SIMULATOR_STREAM](what);
}
