import { driver, type DriverTypes } from '@cuda-js/bindings';
import type { OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';

const HOST_OPTIONS = {
  numaId: (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0x7fffffff
      ? undefined
      : 'a non-negative 32-bit integer',
} satisfies OptionTableOf<NonNullable<ConstructorParameters<typeof Host>[0]>>;

/** Only this module can make the calling thread's NUMA node. */
const NUMA_CURRENT: unique symbol = Symbol('Host.numaCurrent');

/**
 * The host as a location of managed memory, beside {@link Device}: any host
 * memory (`new Host()`), a NUMA node (`new Host({ numaId })`), or the NUMA node
 * of the calling thread (`Host.numaCurrent()`). cuda.core's `Host`.
 */
export class Host {
  /** The NUMA node, where one was named. */
  readonly numaId: number | undefined;
  /** Whether this is the calling thread's NUMA node (`Host.numaCurrent()`). */
  readonly isNumaCurrent: boolean;

  /** @param current internal: use {@link Host.numaCurrent} */
  constructor(options: { readonly numaId?: number | undefined } = {}, current?: symbol) {
    // a numaId outside a non-negative int32 is refused by the table
    options = checkCoreOptions('Host', options, HOST_OPTIONS);
    this.numaId = options.numaId;
    this.isNumaCurrent = current === NUMA_CURRENT;
    Object.freeze(this);
  }

  static #current: Host | undefined;

  /** The NUMA node of the calling thread (`CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT`): for prefetches and preferred locations. */
  static numaCurrent(): Host {
    return (Host.#current ??= new Host({}, NUMA_CURRENT));
  }

  /** Whether `value` is a Host (of this module: a look-alike object is not). */
  static isHost(value: unknown): value is Host {
    return value instanceof Host;
  }

  /** The same location: both any host, the same NUMA node, or both the current one. */
  equals(other: unknown): boolean {
    return Host.isHost(other) && other.numaId === this.numaId && other.isNumaCurrent === this.isNumaCurrent;
  }

  /** The `CUmemLocation` of this location. */
  toMemLocation(): DriverTypes.CUmemLocation_v1 {
    const types = driver.CUmemLocationType;
    if (this.isNumaCurrent) return { type: types.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, id: 0 };
    if (this.numaId !== undefined) return { type: types.CU_MEM_LOCATION_TYPE_HOST_NUMA, id: this.numaId };
    return { type: types.CU_MEM_LOCATION_TYPE_HOST, id: 0 };
  }

  toString(): string {
    return this.isNumaCurrent
      ? 'Host(numa current)'
      : this.numaId === undefined
        ? 'Host()'
        : `Host(numa ${this.numaId})`;
  }
}
