/**
 * What the generated code throws when a thread fails: only the site and the
 * detail. The generated kernel catches it at the grid loop (or the lockstep
 * scheduler does), where it knows which thread was running, and the runtime
 * turns it into a SimulatorError with the user's position (see
 * `locateFault` in simulator-runtime.ts).
 */
export class SimulatorFault extends Error {
  override name = 'SimulatorFault';

  constructor(
    readonly site: number,
    readonly detail: string,
    /** The detail names the threads already (a race): locating adds only the block. */
    readonly namesThreads = false,
  ) {
    super(detail);
  }
}
