import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A gc() without --expose-gc on the command line: the flag may be set at run
// time, and a fresh context then sees the function.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage and lets finalizers run, until `done()` or `rounds` rounds have passed. */
export async function collectUntil(done: () => boolean, rounds = 30): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
