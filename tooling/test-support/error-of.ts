/**
 * What `run` throws, for assertions on its fields (`codeName`, `where`, ...).
 * A run that returns fails the test: a refusal that did not happen is never
 * taken as a pass. `T` is what the caller expects; `expect(e).toBeInstanceOf`
 * checks it.
 */
export function errorOf<T = Error>(run: () => unknown): T {
  try {
    run();
  } catch (error) {
    return error as T;
  }
  throw new Error('expected a throw, but the call returned');
}

/** What the promise of `run` rejects with; a promise that fulfils fails the test. */
export async function rejectionOf<T = Error>(run: () => Promise<unknown>): Promise<T> {
  try {
    await run();
  } catch (error) {
    return error as T;
  }
  throw new Error('expected a rejection, but the promise fulfilled');
}

/**
 * What `run` throws, checked to be an instance of `type` (else the test
 * fails with what was thrown instead), typed as it.
 */
export function errorOfType<T extends Error>(type: abstract new (...args: never[]) => T, run: () => unknown): T {
  const error = errorOf<unknown>(run);
  if (error instanceof type) return error;
  throw new Error(
    `expected a ${type.name}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  );
}
