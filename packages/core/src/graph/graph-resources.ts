import { GraphStateError } from '../errors.js';

/** A resource whose use after close a graph launch must refuse: a Buffer, a view, an Event, a kernel of an ObjectCode. */
interface Closable {
  readonly closed?: unknown;
  checkOpen?(): void;
}

function isClosable(value: object): value is Closable {
  return typeof (value as Closable).closed === 'boolean' || typeof (value as Closable).checkOpen === 'function';
}

function describe(value: object): string {
  const name = (value as { name?: unknown }).name;
  const kind = value.constructor?.name ?? 'object';
  return typeof name === 'string' ? `${kind} '${name}'` : kind;
}

/**
 * What the nodes of a graph use (Buffers, views, array objects, kernels and
 * so their ObjectCode, events, child graphs' resources), held so that none is
 * collected while a graph that uses it lives, and checked before each launch:
 * a graph whose resource was closed is refused, rather than run on freed memory
 * or unloaded code. Shared by every builder of one capture, and copied into each
 * executable graph.
 */
export class GraphResources {
  readonly #held = new Set<unknown>();
  readonly #closable = new Set<Closable>();

  /** How many distinct objects are held. */
  get size(): number {
    return this.#held.size;
  }

  /** Holds `value` if it is an object or a function (primitives need no holding). */
  retain(value: unknown): void {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
    if (this.#held.has(value)) return;
    this.#held.add(value);
    if (isClosable(value)) this.#closable.add(value);
  }

  /** Holds each of `values`. */
  retainAll(values: readonly unknown[]): void {
    for (let i = 0; i < values.length; i++) this.retain(values[i]);
  }

  /** Holds everything `other` holds. */
  merge(other: GraphResources): void {
    if (other === this) return;
    for (const value of other.#held) this.retain(value);
  }

  /** A copy that holds the same objects. */
  copy(): GraphResources {
    const copy = new GraphResources();
    copy.merge(this);
    return copy;
  }

  /** Throws a GraphStateError naming the first held resource that was closed; `what` names the call. */
  check(what: string): void {
    for (const value of this.#closable) {
      if (value.closed === true)
        throw new GraphStateError(
          `${what}: a ${describe(value)} that the graph uses was closed; a graph needs every resource it was built with to stay open`,
        );
      if (typeof value.checkOpen === 'function') {
        try {
          value.checkOpen();
        } catch (error) {
          throw new GraphStateError(
            `${what}: a ${describe(value)} that the graph uses can no longer run: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }
    }
  }
}
