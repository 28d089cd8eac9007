import type { Loc } from '../types/typed-ir.js';

/** A place in the generated code that can fail while the kernel runs, with what is needed to say where. */
export type FaultSite =
  | { readonly kind: 'bounds'; readonly loc: Loc | undefined; readonly array: number }
  | { readonly kind: 'division'; readonly loc: Loc | undefined; readonly operator: 'div' | 'rem' };

/**
 * The fault sites of one generated kernel, by number. The generated code
 * passes only the number to the runtime, so the hot path carries no objects
 * or strings for messages it almost never makes.
 */
export class FaultSites {
  readonly #sites: FaultSite[] = [];

  add(site: FaultSite): number {
    this.#sites.push(site);
    return this.#sites.length - 1;
  }

  get(index: number): FaultSite {
    const site = this.#sites[index];
    if (site === undefined) throw new Error(`simulator: no fault site ${index}`);
    return site;
  }

  get size(): number {
    return this.#sites.length;
  }
}
