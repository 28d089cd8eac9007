// The kernels that a module declares signatures for (or that the build names,
// with signatures of its own), collected while it is imported (cuda-js
// build-kernels imports the app's entry module for them).
// The collection sits on globalThis under a registry symbol, so that kernels
// made by another copy of @cuda-js/jit (the app's own, beside the CLI's)
// are collected too.
import type { JitKernel } from '../jit.js';

const KEY = Symbol.for('cuda-js.jit.declared-kernels');
/** Every kernel made, by any copy of @cuda-js/jit: the brand of a kernel among a module's values. */
const MADE = Symbol.for('cuda-js.jit.kernels');

type Holder = { [KEY]?: unknown[]; [MADE]?: WeakSet<object> };

function made(): WeakSet<object> {
  const holder = globalThis as Holder;
  return (holder[MADE] ??= new WeakSet());
}

/** @internal Called by every kernel made (what it declares is asked when the collection ends). */
export function noteKernel(kernel: object): void {
  made().add(kernel);
  const list = (globalThis as Holder)[KEY];
  if (Array.isArray(list)) list.push(kernel);
}

/** A kernel, by its brand (never by its shape: a module's own object with an `aotSource` method is none). */
function isKernel(value: unknown): value is JitKernel {
  return value !== null && typeof value === 'object' && made().has(value);
}

/** Options of {@link collectKernels}. */
export interface CollectKernelsOptions {
  /** Kernel names to collect whatever they declare (the build gives them signatures: `buildKernelArtifact`'s `signatures`). */
  readonly named?: readonly string[] | undefined;
  /** Every kernel made, whatever it declares. */
  readonly every?: boolean | undefined;
}

/** Whether a build takes `kernel`: it declares signatures, or the build names it. */
export function isBuilt(kernel: JitKernel, named: readonly string[]): boolean {
  return kernel.declaresSignatures || named.includes(kernel.name);
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
  const madeNow: unknown[] = [];
  holder[KEY] = madeNow;
  let loaded: unknown;
  try {
    loaded = await load();
  } finally {
    if (outer === undefined) delete holder[KEY];
    else {
      holder[KEY] = outer;
      if (Array.isArray(outer)) outer.push(...madeNow);
    }
  }
  const out: JitKernel[] = [];
  const add = (k: JitKernel): void => {
    if (!out.includes(k) && (options.every === true || isBuilt(k, named))) out.push(k);
  };
  // what noted itself while loading is a kernel (of this copy or another); a module's values only by the brand
  (madeNow as JitKernel[]).forEach(add);
  if (loaded !== null && typeof loaded === 'object') Object.values(loaded).filter(isKernel).forEach(add);
  return out;
}
