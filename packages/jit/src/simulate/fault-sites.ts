import type { SourceLocator } from '../errors.js';
import type { AtomicFunction, Loc, MemorySpace, ShuffleMode, VoteMode } from '../typing/typed-ir.js';

/** The collective operations, as the lockstep scheduler tells them apart. */
export type CollectiveOp =
  | { readonly op: 'barrier'; readonly scope: 'block' | 'warp' | 'grid' }
  | { readonly op: 'vote'; readonly scope: 'block' | 'warp'; readonly mode: VoteMode }
  | { readonly op: 'shuffle'; readonly mode: ShuffleMode }
  | { readonly op: 'match'; readonly mode: 'any' | 'all'; readonly valueType: string }
  | { readonly op: 'activemask' }
  | { readonly op: 'mma'; readonly shape: string };

/** A call of a device function whose inlined body holds a site: its name and the call's position. */
export interface InlineFrame {
  readonly name: string;
  readonly loc: Loc | undefined;
}

/** A place in the generated code that can fail while the kernel runs, with what is needed to say where. */
export type FaultSite = FaultSiteKind & {
  /** The device-function calls the site is inlined in, innermost first. */
  readonly via?: readonly InlineFrame[];
};

type FaultSiteKind =
  /** An element access of an array parameter (no `space`) or of memory `array` of the kernel's `memories` (`space` set). */
  | {
      readonly kind: 'bounds';
      readonly loc: Loc | undefined;
      readonly array: number;
      readonly space?: MemorySpace;
      readonly atomic?: AtomicFunction;
    }
  | { readonly kind: 'division'; readonly loc: Loc | undefined; readonly operator: 'div' | 'rem' }
  /** Where a thread waits for others (lockstep mode): the scheduler reads the op. */
  | { readonly kind: 'collective'; readonly loc: Loc | undefined; readonly collective: CollectiveOp }
  | { readonly kind: 'print'; readonly loc: Loc | undefined; readonly format: string }
  /** The start of a loop's body, where the launch's step budget is counted down. */
  | { readonly kind: 'loop'; readonly loc: Loc | undefined }
  /** The entry of a recursive function (`function` indexes the kernel's `functions`), where the depth of its calls is bounded. */
  | { readonly kind: 'recursion'; readonly loc: Loc | undefined; readonly function: number; readonly name: string }
  /** A call of linked code: `external` indexes the kernel's `externals`. */
  | { readonly kind: 'external'; readonly loc: Loc | undefined; readonly external: number };

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

/** `, in device function 'get' called at kernels/k.js:2:12` (and the calls around it), or nothing outside device functions. */
export function describeCalls(via: readonly InlineFrame[] | undefined, locator: SourceLocator): string {
  if (via === undefined || via.length === 0) return '';
  return via
    .map((frame, k) => {
      const p = frame.loc === undefined ? undefined : (frame.loc.locator ?? locator).position(frame.loc);
      return `${k === 0 ? ', in device function' : ', from'} '${frame.name}'${p ? ` called at ${p.file}:${p.line}:${p.column}` : ''}`;
    })
    .join('');
}
