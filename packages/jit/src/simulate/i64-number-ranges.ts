import type { ScalarName } from '../typing/jit-types.js';
import type { Expr, TypedKernel } from '../typing/typed-ir.js';
import { forEachChild, forEachExpr } from './ir-traversal.js';

/** Below this magnitude every integer is exact as a JS number. */
const EXACT_LIMIT = 2 ** 53;

/** The largest extent a launch accepts (the GPU kernel reads extents as i32). */
export const MAX_EXTENT = 2 ** 31 - 1;

/** The largest magnitude of a stride in elements (a safe integer; views guarantee it). */
export const MAX_STRIDE = Number.MAX_SAFE_INTEGER;

/** Magnitude bounds of the integer types that convert to i64 exactly as numbers. */
const SOURCE_BOUNDS: Partial<Record<ScalarName, number>> = {
  bool: 1,
  i8: 2 ** 7,
  u8: 2 ** 8 - 1,
  i16: 2 ** 15,
  u16: 2 ** 16 - 1,
  i32: 2 ** 31,
  u32: 2 ** 32 - 1,
};

function within(bound: number): number | undefined {
  // A bound computed in floating point rounds monotonically, so `< 2^53` never admits an inexact value.
  return bound < EXACT_LIMIT ? bound : undefined;
}

/**
 * Which i64 expressions the simulator computes as exact JS numbers instead
 * of bigints, and the magnitude bound that proves them exact: an index
 * `convert(i64, i)` of an i32 `i`, sums and products of such values, extents,
 * and i64 locals (the typer's index temporaries) whose every assignment is
 * such a value. Nothing here can wrap at 64 bits, so number arithmetic gives
 * exactly the GPU's result. The generator asks {@link bound} for each i64
 * node, so code and analysis cannot disagree.
 */
export class I64NumberRanges {
  /** Bounds of the i64 locals held as numbers. */
  readonly #locals = new Map<number, number>();

  constructor(kernel: TypedKernel) {
    const params = new Set<number>();
    for (const p of kernel.params) if (p.kind === 'scalar') params.add(p.local);
    // A recursive function's parameters and result cross calls: bigints, as every i64 value between functions.
    for (const f of kernel.functions ?? []) {
      for (const id of f.params) params.add(id);
      if (f.result !== undefined) params.add(f.result);
    }
    const assignments = new Map<number, Expr[]>();
    kernel.locals.forEach((local, id) => {
      if (local.type === 'i64' && !params.has(id)) assignments.set(id, []);
    });
    const visit = (e: Expr): void => {
      if (e.op === 'assign') assignments.get(e.id)?.push(e.value);
      forEachChild(e, visit);
    };
    forEachExpr(kernel.body, visit);
    for (const f of kernel.functions ?? []) forEachExpr(f.body, visit);
    // Promote, round by round, the locals whose assignments are all bounded given those promoted so far.
    // A local in a cycle (k = k + 1) is never promoted: its range is unknown.
    for (let changed = true; changed; ) {
      changed = false;
      for (const [id, values] of assignments) {
        let bound = 0; // a local starts at 0 in every thread
        for (const value of values) {
          const b = this.bound(value);
          if (b === undefined) {
            bound = NaN;
            break;
          }
          bound = Math.max(bound, b);
        }
        if (!Number.isNaN(bound)) {
          this.#locals.set(id, bound);
          assignments.delete(id);
          changed = true;
        }
      }
    }
  }

  /** Whether the i64 local `id` is held as a number. */
  isNumberLocal(id: number): boolean {
    return this.#locals.has(id);
  }

  /** The magnitude bound of an i64 expression computed as a number, or undefined when it is a bigint. */
  bound(e: Expr): number | undefined {
    if (e.type !== 'i64') return undefined;
    switch (e.op) {
      case 'const': {
        const v = typeof e.value === 'bigint' ? e.value : BigInt(Number(e.value));
        const magnitude = Number(v < 0n ? -v : v);
        return within(magnitude);
      }
      case 'local':
      case 'assign':
        return this.#locals.get(e.id);
      case 'unary':
        return e.operator === 'neg' ? this.bound(e.operand) : undefined;
      case 'binary': {
        if (e.operator !== 'add' && e.operator !== 'sub' && e.operator !== 'mul') return undefined;
        const l = this.bound(e.left);
        const r = l === undefined ? undefined : this.bound(e.right);
        if (l === undefined || r === undefined) return undefined;
        return within(e.operator === 'mul' ? l * r : l + r);
      }
      case 'convert':
        return SOURCE_BOUNDS[e.operand.type];
      case 'logical': {
        const l = this.bound(e.left);
        const r = l === undefined ? undefined : this.bound(e.right);
        return l === undefined || r === undefined ? undefined : Math.max(l, r);
      }
      case 'select': {
        const a = this.bound(e.then);
        const b = a === undefined ? undefined : this.bound(e.otherwise);
        return a === undefined || b === undefined ? undefined : Math.max(a, b);
      }
      case 'dim':
        return e.what === 'shape' ? MAX_EXTENT : MAX_STRIDE;
      case 'sequence':
        return this.bound(e.value);
      case 'inline':
        // The call's value is its result local's: a number exactly when that local is one.
        return this.#locals.get(e.result);
      default:
        return undefined;
    }
  }
}
