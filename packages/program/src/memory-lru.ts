// The compile cache's memory layer: a least-recently-used map bounded by
// entries and by bytes. A Map keeps insertion order, so the first key is the
// least recently used one when every use re-inserts its key. Made cheap to
// build and to use once (no preallocated tables): a process whose first
// kernel is a disk-cache hit pays for nothing it does not use (issue 23).

/** A least-recently-used map of at most `maxEntries` values and `maxSize` units (the sizes that `sizeOf` gives). */
export class MemoryLru<V> {
  readonly #map = new Map<string, { readonly value: V; readonly size: number }>();
  #size = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxSize: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  /** The value of `key`, now the most recently used, or undefined. */
  get(key: string): V | undefined {
    const slot = this.#map.get(key);
    if (slot === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, slot);
    return slot.value;
  }

  /** Stores `value` as the most recently used, evicting the least recently used past the bounds; a value larger than `maxSize` is not kept. */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    this.#map.set(key, { value, size });
    this.#size += size;
    for (const [oldest, slot] of this.#map) {
      if (this.#map.size <= this.maxEntries && this.#size <= this.maxSize) break;
      this.#map.delete(oldest);
      this.#size -= slot.size;
    }
  }

  delete(key: string): void {
    const slot = this.#map.get(key);
    if (slot === undefined) return;
    this.#map.delete(key);
    this.#size -= slot.size;
  }

  clear(): void {
    this.#map.clear();
    this.#size = 0;
  }

  /** Values kept. */
  get size(): number {
    return this.#map.size;
  }

  /** The sum of the kept values' sizes. */
  get calculatedSize(): number {
    return this.#size;
  }
}
