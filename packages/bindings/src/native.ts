import { createRequire } from 'node:module';
import { findLibrary } from '@cuda-js/pathfinder';
import { makeLibraryError } from './errors.js';
import { recordFound } from './loaded-libraries.js';

/** The addon's exports, untyped here; the namespaces are typed where they are exported. */
export interface NativeAddon {
  readonly driver: Record<string, unknown>;
  readonly nvrtc: Record<string, unknown>;
  readonly nvjitlink: Record<string, unknown>;
  readonly nvvm: Record<string, unknown>;
  setup(resolveLibrary: (name: string) => string, makeError: typeof makeLibraryError): void;
  loadedLibraries(): { name: string; path: string }[];
  perThreadDefaultStream(): boolean;
  /**
   * Test-only: runs a job on the addon's nvJitLink thread, blocking or as a
   * Promise (the paths nvJitLink's functions take), after `delayMs`; gives the
   * id of the thread that ran it and of the JS thread that got the answer.
   * @internal
   */
  __nvJitLinkThreadIdForTests(async?: false, delayMs?: number): { job: number; caller: number };
  __nvJitLinkThreadIdForTests(async: true, delayMs?: number): Promise<{ job: number; caller: number }>;
}

// The addon sits in build/Release beside src/ and dist/, whichever this file runs from.
const require = createRequire(import.meta.url);
export const native = require('../build/Release/cuda_js_bindings.node') as NativeAddon;

// The addon asks for a library's path on the first call into it.
native.setup((name) => {
  const location = findLibrary(name);
  recordFound(location);
  return location.path;
}, makeLibraryError);
