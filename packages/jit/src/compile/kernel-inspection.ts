// What `JitKernel.inspect` gives: the types of one specialization, and its
// NVVM IR, PTX and simulator code, each made when it is first read.
import { checkArchitecture } from './architecture-requirements.js';
import { ArchitectureRequiredError, nvvmIRVersion } from '@cuda-js/program';
import { lowerKernel } from '../lower/lower-kernel.js';
import type { SourceLocator } from '../errors.js';
import { SimulatedKernel } from '../simulate/simulated-kernel.js';
import { typeName } from '../typing/jit-types.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { compileToPtx } from './compile-kernel.js';
import type { KernelCompileOptions } from './kernel-compile-options.js';

/** What `inspect` gives: the types, the NVVM IR and the PTX of one specialization. */
export interface KernelInspection {
  /** `name: type` of each parameter and local variable. */
  readonly types: {
    readonly params: Readonly<Record<string, string>>;
    readonly locals: Readonly<Record<string, string>>;
  };
  readonly nvvm: string;
  readonly ptx: string;
  /** The simulator's generated JavaScript. */
  readonly simulator: string;
}

/** @internal What {@link inspectKernel} needs besides the typed kernel. */
export interface InspectionContext {
  /** The kernel's name, for the message of a missing architecture. */
  readonly name: string;
  /** The options of the PTX compile (the inspection's `arch` in them). */
  readonly compileOptions: KernelCompileOptions;
  /** Where the kernel's text is, for the simulator's messages. */
  readonly locator: SourceLocator;
}

/** @internal The inspection of a typed kernel (see JitKernel.inspect). */
export function inspectKernel(
  typed: TypedKernel,
  { name, compileOptions, locator }: InspectionContext,
): KernelInspection {
  const params: Record<string, string> = {};
  typed.params.forEach((p) => (params[p.name] = typeName(p.type)));
  const locals: Record<string, string> = {};
  typed.locals.forEach((l) => (locals[l.name] = l.type));
  // each form is made when it is first read: the PTX needs libNVVM (and an arch without a device), the others do not
  let nvvm: string | undefined;
  let ptx: string | undefined;
  let simulator: string | undefined;
  const fastMath = compileOptions.fastMath === true;
  return {
    types: { params, locals },
    get nvvm() {
      return (nvvm ??= lowerKernel(typed, { irVersion: nvvmIRVersion(), fastMath }));
    },
    get ptx() {
      if (ptx !== undefined) return ptx;
      const ir = this.nvvm;
      checkArchitecture(typed, compileOptions.arch);
      try {
        return (ptx = compileToPtx(ir, compileOptions));
      } catch (error) {
        // program's message says "pass arch"; say where a JIT user passes it
        if (!(error instanceof ArchitectureRequiredError)) throw error;
        throw new ArchitectureRequiredError(error.reason, {
          cause: error.cause,
          example: `jit(fn, { arch: 'sm_90' }), or ${name}.inspect(signature, { arch: 'sm_90' }) for this inspection`,
        });
      }
    },
    get simulator() {
      return (simulator ??= new SimulatedKernel(typed, locator).source);
    },
  };
}
