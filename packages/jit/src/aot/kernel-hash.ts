// The hash of a kernel's definition, which an artifact records and the
// runtime checks before it loads anything: the kernel's text, its captured
// constants (device functions by their text, recursively; arrays by their
// bytes) and the options that change its code. The signature and the
// architecture are not in it (the artifact lists those itself).
import { cacheKey } from '@cuda-js/program';
import { constantsPart } from '../compile/kernel-cache.js';
import type { KernelConstant } from '../device-function.js';

/** What the hash is made of. */
export interface KernelDefinition {
  /** The kernel's text (`fn.toString()`). */
  readonly source: string;
  readonly constants: Readonly<Record<string, KernelConstant>>;
  readonly fma: boolean | undefined;
  readonly fastMath: boolean | undefined;
}

/** The definition's hash (hex). */
export function kernelHash(definition: KernelDefinition): string {
  return cacheKey({
    kind: 'cuda-js aot kernel',
    source: definition.source,
    constants: constantsPart(definition.constants),
    options: { fma: definition.fma, fastMath: definition.fastMath === true },
  });
}
