// The `compile` stage: NVVM IR text to PTX, and on to a loaded Kernel,
// through @cuda-js/program (libNVVM with libdevice linked, then the driver
// or the linker; a kernel that calls linked code is linked with it, see
// linked-kernel.ts).
import { Program, type Kernel, type ObjectCode } from '@cuda-js/program';
import { checkRoute, compileRoute } from './compile-route.js';
import { linkProgramOptions, nvvmProgramOptions, type KernelCompileOptions } from './kernel-compile-options.js';
import { linkKernel, linkKernelAsync } from './linked-kernel.js';

/** A kernel compiled and loaded: the code it lives in, the Kernel, and its PTX. */
export interface CompiledKernel {
  /** The loaded code (PTX or cubin, by the route); closing it ends the kernel. */
  readonly objectCode: ObjectCode;
  readonly kernel: Kernel;
  /** The kernel's own PTX (before any link; empty for a kernel linked with link-time optimization, which went to the linker as LTO-IR). */
  readonly ptx: string;
  /** The route taken (`'auto'` resolved). */
  readonly route: 'ptx' | 'cubin';
}

const decoder = new TextDecoder();

function nvvmProgram(ir: string, options: KernelCompileOptions): Program {
  return new Program(ir, 'nvvm', nvvmProgramOptions(options, ir));
}

function linkProgram(ptxCode: ObjectCode, options: KernelCompileOptions): Program {
  return new Program(ptxCode.code, 'ptx', linkProgramOptions(options));
}

/**
 * The PTX of NVVM IR (with libdevice linked), blocking: the kernel's own,
 * whose calls of linked code stay `.extern` (`options.link` is not linked).
 *
 * @throws `NvvmError` with libNVVM's log when the IR does not compile
 * @throws `ArchitectureRequiredError` when no `arch` is given and there is no device
 */
export function compileToPtx(ir: string, options: KernelCompileOptions = {}): string {
  checkRoute(options);
  const code = nvvmProgram(ir, options).compile('ptx', {
    cache: options.cache,
    logs: options.logs,
    checkCompatibility: false,
  });
  return decoder.decode(code.code);
}

/** {@link compileToPtx} with libNVVM on a worker thread. */
export async function compileToPtxAsync(ir: string, options: KernelCompileOptions = {}): Promise<string> {
  checkRoute(options);
  const code = await nvvmProgram(ir, options).compileAsync('ptx', {
    cache: options.cache,
    logs: options.logs,
    checkCompatibility: false,
  });
  return decoder.decode(code.code);
}

/**
 * Compiles NVVM IR and loads the kernel `symbol` from it, blocking. The
 * `'auto'` route hands libNVVM's PTX to the driver as it is, which is the
 * shortest way to a loaded kernel, and links to a cubin only where the
 * driver cannot read the PTX or a link-step option asks for it. With
 * `options.link` the kernel is linked with that code into a cubin.
 *
 * @throws `NvvmError` when the IR does not compile; `ObjectCodeLoadError` when the driver cannot load it; `KernelNotFoundError` for a wrong symbol
 * @throws `LinkError` when the kernel's linked code does not link (see linked-kernel.ts)
 */
export function compileKernel(ir: string, symbol: string, options: KernelCompileOptions = {}): CompiledKernel {
  const planned = compileRoute(options);
  if (planned === 'linked' || planned === 'linked-lto') {
    const linked = linkKernel(ir, options, options.link ?? []);
    return loaded(linked.objectCode, symbol, linked.ptx, 'cubin');
  }
  const calls = { cache: options.cache, logs: options.logs };
  // The compatibility check is ours to act on (auto) or to leave to loading, which explains a refusal itself.
  const ptxCode = nvvmProgram(ir, options).compile('ptx', { ...calls, checkCompatibility: false });
  const route = planned === 'auto' ? compileRoute(options, ptxCode) : planned;
  const objectCode = route === 'ptx' ? ptxCode : linkProgram(ptxCode, options).compile('cubin', calls);
  return loaded(objectCode, symbol, decoder.decode(ptxCode.code), route === 'ptx' ? 'ptx' : 'cubin');
}

/** {@link compileKernel} with libNVVM, the linker and the driver's loading off the event loop. */
export async function compileKernelAsync(
  ir: string,
  symbol: string,
  options: KernelCompileOptions = {},
): Promise<CompiledKernel> {
  const planned = compileRoute(options);
  if (planned === 'linked' || planned === 'linked-lto') {
    const linked = await linkKernelAsync(ir, options, options.link ?? []);
    await loadedAsync(linked.objectCode);
    return loaded(linked.objectCode, symbol, linked.ptx, 'cubin');
  }
  const calls = { cache: options.cache, logs: options.logs };
  const ptxCode = await nvvmProgram(ir, options).compileAsync('ptx', { ...calls, checkCompatibility: false });
  const route = planned === 'auto' ? compileRoute(options, ptxCode) : planned;
  const objectCode = route === 'ptx' ? ptxCode : await linkProgram(ptxCode, options).compileAsync('cubin', calls);
  await loadedAsync(objectCode);
  return loaded(objectCode, symbol, decoder.decode(ptxCode.code), route === 'ptx' ? 'ptx' : 'cubin');
}

/** Loads `objectCode` off the event loop; closes it when that fails. */
async function loadedAsync(objectCode: ObjectCode): Promise<void> {
  try {
    await objectCode.loadAsync();
  } catch (error) {
    objectCode.close();
    throw error;
  }
}

function loaded(objectCode: ObjectCode, symbol: string, ptx: string, route: 'ptx' | 'cubin'): CompiledKernel {
  try {
    return { objectCode, kernel: objectCode.getKernel(symbol), ptx, route };
  } catch (error) {
    objectCode.close();
    throw error;
  }
}
