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
