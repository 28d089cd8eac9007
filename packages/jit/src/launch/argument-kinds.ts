import { DeviceArray, Scalar } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';

/**
 * Whether a launch's arguments have the types of the last launch's, told
 * without working any type out: per position, the same number, bigint or
 * boolean kind; a typed scalar of the same type; or the very same
 * StridedMemoryView, DeviceArray or typed array (whose type never changes).
 * Anything else (a protocol object, whose answer may change; a new view)
 * says no, and the launch types its arguments in full (argument-types.ts).
 * A launch in a loop with the same arrays thus does no type work at all.
 */
export class ArgumentKinds {
  #last: readonly unknown[] | undefined;

  /** Whether `args` are of the kinds of the arguments {@link remember}ed last. */
  same(args: readonly unknown[]): boolean {
    const last = this.#last;
    if (last === undefined || last.length !== args.length) return false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      const b = last[i];
      const kind = typeof a;
      if (kind === 'number' || kind === 'bigint' || kind === 'boolean') {
        if (typeof b !== kind) return false;
        continue;
      }
      if (a === b) {
        // a closed view is typed again, to its clear error
        if (
          a instanceof StridedMemoryView ? !a.closed : a instanceof DeviceArray ? !a.view.closed : ArrayBuffer.isView(a)
        )
          continue;
        return false;
      }
      if (a instanceof Scalar && b instanceof Scalar && a.type === b.type) continue;
      return false;
    }
    return true;
  }

  /** Remembers the arguments of a launch whose types were worked out. */
  remember(args: readonly unknown[]): void {
    this.#last = args;
  }
}
