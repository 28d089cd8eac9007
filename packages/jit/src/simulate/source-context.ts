import type { FaultSite } from './fault-sites.js';

/** What generating one expression needs from the kernel being generated. */
export interface SourceContext {
  /** Declares a temporary of the generated function, initialized to `initial` (so that it keeps one JS type), and gives its name. */
  temporary(initial: '0' | '0n' | 'false' | 'null'): string;
  /** Records a place that can fail and gives its number for the runtime call. */
  addFaultSite(site: FaultSite): number;
}
