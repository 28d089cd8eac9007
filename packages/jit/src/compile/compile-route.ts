// Which way a compiled kernel goes to the driver, decided in one place
// (compileRoute), for compileKernel and linkKernel alike: libNVVM's PTX as
// it is, a cubin linked from it, or a cubin linked with the kernel's link
// inputs (with link-time optimization where one of them is LTO-IR).
import { ObjectCode, UnsupportedOptionError, type CompatibilityReport } from '@cuda-js/program';
import type { LinkInput } from '../external-device-function.js';
import type { KernelCompileOptions } from './kernel-compile-options.js';

/**
 * How the compiled kernel is made loadable:
 * - `'ptx'`: libNVVM's PTX is loaded as it is; the driver compiles it to
 *   machine code when loading (and keeps the result in its own disk cache,
 *   `~/.nv/ComputeCache`). Needs no linker.
 * - `'cubin'`: the PTX is linked to a cubin first (nvJitLink, else the
 *   driver's linker); loading then compiles nothing. Needed for
 *   `maxRegisters` and `lineinfo`, and for a driver older than the PTX
 *   (CUDA minor-version compatibility: a 13.x cubin loads on a 13.0 driver,
 *   a 13.1 PTX does not).
 * - `'auto'` (default): `'ptx'`, unless the driver cannot load this PTX or an
 *   option needs the linker; then `'cubin'`.
 * A kernel with {@link KernelCompileOptions.link} inputs always takes `'cubin'`.
 */
export type CompileRoute = 'auto' | 'ptx' | 'cubin';

/**
 * The route a compile takes, as {@link compileRoute} decides it:
 * - `'ptx'`: libNVVM's PTX is loaded as it is;
 * - `'cubin'`: libNVVM's PTX is linked to a cubin;
 * - `'linked'`: the kernel's PTX is linked with its link inputs into a cubin;
 * - `'linked-lto'`: the kernel's LTO-IR is linked with its inputs, one of them
 *   LTO-IR, with link-time optimization (nvJitLink only).
 */
export type KernelRoute = 'ptx' | 'cubin' | 'linked' | 'linked-lto';

/** What {@link compileRoute} reads of libNVVM's PTX: the driver's report on it (undefined where there is no driver). */
export interface CompiledPtx {
  compatibility(): CompatibilityReport | undefined;
}

const ROUTES: readonly CompileRoute[] = ['auto', 'ptx', 'cubin'];

/**
 * The route asked for (default `'auto'`), checked against the options.
 *
 * @throws {UnsupportedOptionError} for link-step options on the `'ptx'` route
 */
export function checkRoute(options: KernelCompileOptions): CompileRoute {
  const route = options.route ?? 'auto';
  if (!ROUTES.includes(route))
    throw new TypeError(`route must be one of ${ROUTES.map((r) => `'${r}'`).join(', ')}; got ${JSON.stringify(route)}`);
  if (route === 'ptx') {
    // Program would refuse these for nvvm → ptx too, but blaming libNVVM; the route is what to change.
    if (options.maxRegisters !== undefined)
      throw new UnsupportedOptionError(
        'maxRegisters',
        "route 'ptx'",
        "the register limit is applied by the linker: use route 'cubin' or 'auto'",
      );
    if (options.lineinfo)
      throw new UnsupportedOptionError(
        'lineinfo',
        "route 'ptx'",
        "line information is added by the linker: use route 'cubin' or 'auto'",
      );
  }
  return route;
}

/** Whether linking `inputs` takes link-time optimization: one of them is LTO-IR. */
export function linksLtoir(inputs: readonly LinkInput[]): boolean {
  return inputs.some((input) => input instanceof ObjectCode && input.codeType === 'ltoir');
}

/**
 * The route of one compile, checked (see {@link checkRoute}): a kernel with
 * `link` inputs is linked with them (`'linked'`, `'linked-lto'`); otherwise
 * the route asked for, where `'auto'` is `'ptx'` unless a link-step option
 * needs the linker or the driver cannot read libNVVM's PTX (`ptx`) but a
 * cubin of the same CUDA major can still serve (minor-version
 * compatibility): then `'cubin'`. Where `'auto'` depends on the PTX and
 * `ptx` is not given (before libNVVM ran), it is returned as it is.
 *
 * @throws {UnsupportedOptionError} for link-step options on the `'ptx'` route, and for route `'ptx'` of a kernel with `link` inputs
 */
export function compileRoute(options: KernelCompileOptions): KernelRoute | 'auto';
export function compileRoute(options: KernelCompileOptions, ptx: CompiledPtx): KernelRoute;
export function compileRoute(options: KernelCompileOptions, ptx?: CompiledPtx): KernelRoute | 'auto' {
  const route = checkRoute(options);
  if (options.link !== undefined && options.link.length > 0) {
    if (route === 'ptx') {
      throw new UnsupportedOptionError(
        'route',
        "route 'ptx' of a kernel that calls linked code",
        "the kernel is linked with that code into a cubin: use route 'cubin' or 'auto'",
      );
    }
    return linksLtoir(options.link) ? 'linked-lto' : 'linked';
  }
  if (route !== 'auto') return route;
  if (options.maxRegisters !== undefined || options.lineinfo) return 'cubin';
  if (ptx === undefined) return 'auto';
  const report = ptx.compatibility();
  // undefined where there is no driver: loading will say so, and no cubin could help
  if (!report || report.loadable) return 'ptx';
  // A driver of an older major cannot load the cubin either: loading the PTX then explains why.
  return report.requiredCudaVersion?.major === report.driverCudaVersion.major ? 'cubin' : 'ptx';
}
