// The kernels that a module declares signatures for (or that the build names,
// with signatures of its own), collected while it is imported (cuda-js
// build-kernels imports the app's entry module for them).
// The collection sits on globalThis under a registry symbol, so that kernels
// made by another copy of @cuda-js/jit (the app's own, beside the CLI's)
// are collected too.
import type { JitKernel } from '../jit.js';

const KEY = Symbol.for('cuda-js.jit.declared-kernels');

type Holder = { [KEY]?: unknown[] };

/** @internal Called by every kernel made (what it declares is asked when the collection ends). */
export function noteKernel(kernel: unknown): void {
  const list = (globalThis as Holder)[KEY];
  if (Array.isArray(list)) list.push(kernel);
}

function isKernel(value: unknown): value is JitKernel {
  return value !== null && typeof value === 'object' && typeof (value as { aotSource?: unknown }).aotSource === 'function';
}

/** Options of {@link collectKernels}. */
export interface CollectKernelsOptions {
  /** Kernel names to collect whatever they declare (the build gives them signatures: `buildKernelArtifact`'s `signatures`). */
  readonly named?: readonly string[];
  /** Every kernel made, whatever it declares. */
  readonly every?: boolean;
}

/** Whether a build takes `kernel`: it declares signatures, or the build names it. */
export function isBuilt(kernel: JitKernel, named: readonly string[]): boolean {
  return named.includes(kernel.name) || kernel.aotSource().signatures.length > 0;
}

/**
 * The kernels with declared `signatures` (or named in `options.named`)
 * that `load` makes (for instance `() => import('./kernels.js')`): those
 * made while it runs, and the kernels among the values of the namespace or
 * object it returns (made before, by a module imported earlier), each once,
 * in the order they were made.
 */
export async function collectKernels(load: () => unknown, options: CollectKernelsOptions = {}): Promise<JitKernel[]> {
  const named = options.named ?? [];
  const holder = globalThis as Holder;
  const outer = holder[KEY];
  const made: unknown[] = [];
  holder[KEY] = made;
  let loaded: unknown;
  try {
    loaded = await load();
  } finally {
    if (outer === undefined) delete holder[KEY];
    else {
      holder[KEY] = outer;
      if (Array.isArray(outer)) outer.push(...made);
    }
  }
  const out: JitKernel[] = [];
  const add = (k: unknown): void => {
    if (isKernel(k) && !out.includes(k) && (options.every === true || isBuilt(k, named))) out.push(k);
  };
  made.forEach(add);
  if (loaded !== null && typeof loaded === 'object') Object.values(loaded).forEach(add);
  return out;
}
