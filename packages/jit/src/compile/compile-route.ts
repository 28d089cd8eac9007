// Which way a compiled kernel goes to the driver: its PTX as it is, or a
// cubin linked from it (see CompileRoute).
import { UnsupportedOptionError, type CompatibilityReport } from '@cuda-js/program';
import type { CompileRoute, KernelCompileOptions } from './kernel-compile-options.js';

const ROUTES: readonly CompileRoute[] = ['auto', 'ptx', 'cubin'];

/**
 * The route asked for (default `'auto'`), checked against the options.
 *
 * @throws {UnsupportedOptionError} for link-step options on the `'ptx'` route
 */
export function checkRoute(options: KernelCompileOptions): CompileRoute {
  const route = options.route ?? 'auto';
  if (!ROUTES.includes(route)) throw new TypeError(`route must be one of ${ROUTES.map((r) => `'${r}'`).join(', ')}; got ${JSON.stringify(route)}`);
  if (route === 'ptx') {
    // Program would refuse these for nvvm → ptx too, but blaming libNVVM; the route is what to change.
    if (options.maxRegisters !== undefined) throw new UnsupportedOptionError('maxRegisters', "route 'ptx'", "the register limit is applied by the linker: use route 'cubin' or 'auto'");
    if (options.lineinfo) throw new UnsupportedOptionError('lineinfo', "route 'ptx'", "line information is added by the linker: use route 'cubin' or 'auto'");
  }
  return route;
}

/**
 * The route for PTX that libNVVM made, given the driver's compatibility
 * report on it (undefined where there is no driver): the driver takes PTX it can read; the
 * linker takes what the driver cannot read but a cubin of the same CUDA
 * major can still serve (minor-version compatibility), and link-step options.
 */
export function resolveRoute(route: CompileRoute, options: KernelCompileOptions, report: CompatibilityReport | undefined): 'ptx' | 'cubin' {
  if (route !== 'auto') return route;
  if (options.maxRegisters !== undefined || options.lineinfo) return 'cubin';
  // undefined where there is no driver: loading will say so, and no cubin could help
  if (!report || report.loadable) return 'ptx';
  // A driver of an older major cannot load the cubin either: loading the PTX then explains why.
  return report.requiredCudaVersion?.major === report.driverCudaVersion.major ? 'cubin' : 'ptx';
}
