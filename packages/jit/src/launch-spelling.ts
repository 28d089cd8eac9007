/**
 * numba's launch spelling, `k[grid, block](...args)`, written in JavaScript:
 * the brackets hold a comma expression, so the kernel is read at the key
 * `String(block)` (`'256'`, `'16,16'`, or `'[object Object]'` for numba's
 * `k[grid, block, stream]`), which no kernel has, and the call would fail
 * with "k[(grid , block)] is not a function". This puts a Proxy at the end
 * of a class's prototype chain: its trap runs only for a key that the
 * object and its prototypes lack (never for `launch`, `compile` or any
 * other member, so the launch path costs nothing more), and it refuses
 * those keys with a {@link JitError} that names `kernel.launch(...)`.
 */
import { JitError } from './errors.js';

/** A key that `k[grid, block]` makes: a number, numbers joined by commas (an array), or an object's string. */
const LAUNCH_KEY = /^(?:\d+(?:,\d+)*|\[object Object\])$/;

/** Makes `prototype`'s objects refuse numba's `k[grid, block]`: their prototype's prototype becomes the trap. */
export function refuseBracketLaunch(prototype: object, what: string): void {
  const base = Object.getPrototypeOf(prototype) as object;
  const trap = new Proxy(base, {
    get(target, key, receiver) {
      if (typeof key === 'string' && LAUNCH_KEY.test(key)) {
        throw new JitError(
          `${what}[${key}] is numba's launch spelling k[grid, block](...args): JavaScript reads it as the property '${key}' (the comma expression gives its last operand); write ${what}.launch({ grid, block }, ...args) (with stream and sharedMemory in the same object)`,
        );
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  Object.setPrototypeOf(prototype, trap);
}
