// A kernel that calls linked code (`declareDevice`), compiled and linked
// with that code into one cubin, through @cuda-js/program:
// - without LTO-IR among the inputs: the kernel's NVVM IR to PTX (libNVVM),
//   each `{ cuda }` input to relocatable PTX (NVRTC, `-rdc`), each `{ ptx }`
//   input as it is, ObjectCodes as they are; the Linker (nvJitLink, else the
//   driver's cuLink*) makes the cubin;
// - with an LTO-IR input: the kernel and the `{ cuda }` inputs to LTO-IR
//   instead, and nvJitLink links everything with link-time optimization (the
//   driver cannot), with the kernel's math modes.
// Every step uses the compile cache it is given, the link too.
import { Linker, LinkerUnavailableError, ObjectCode, Program } from '@cuda-js/program';
import type { LinkInput } from '../external-device-function.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { compileRoute } from './compile-route.js';
import { linkerOptions, nvvmProgramOptions, type KernelCompileOptions } from './kernel-compile-options.js';

const decoder = new TextDecoder();

/** A kernel linked with its inputs: the cubin, and the kernel's own PTX (empty with link-time optimization, where the kernel went to the linker as LTO-IR). */
export interface LinkedKernel {
  readonly objectCode: ObjectCode;
  readonly ptx: string;
}

/**
 * The code a typed kernel's externals link, each input once: the same
 * object, the same `{ cuda }` or `{ ptx }` text, or the same ObjectCode
 * given to several declarations (one library defining several functions) is
 * linked once.
 */
export function linkInputsOf(kernel: Pick<TypedKernel, 'externals'>): LinkInput[] {
  const out: LinkInput[] = [];
  const seen = new Set<unknown>();
  for (const external of kernel.externals ?? []) {
    for (const input of external.link) {
      const key =
        input instanceof ObjectCode
          ? input
          : 'cuda' in input
            ? `cuda\0${input.name ?? ''}\0${input.cuda}\0${JSON.stringify(input.includePaths ?? [])}\0${JSON.stringify(input.headers ?? {})}`
            : `ptx\0${input.name ?? ''}\0${input.ptx}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(input);
    }
  }
  return out;
}

/** What is compiled for one link: the kernel's program, and each input as a program to compile or code as it is. */
interface LinkPlan {
  readonly lto: boolean;
  readonly target: 'ptx' | 'ltoir';
  readonly kernel: Program;
  readonly inputs: readonly ({ readonly program: Program } | { readonly code: ObjectCode; readonly owned: boolean })[];
}

function plan(ir: string, options: KernelCompileOptions, inputs: readonly LinkInput[]): LinkPlan {
  if (inputs.length === 0) throw new TypeError('a linked kernel needs at least one link input');
  // the route, decided where every compile's is: 'linked-lto' where an input is LTO-IR; route 'ptx' refused
  const lto = compileRoute({ ...options, link: inputs }) === 'linked-lto';
  const base = options.name ?? 'kernel';
  const planned = inputs.map((input, k) => {
    if (input instanceof ObjectCode) return { code: input, owned: false };
    if ('cuda' in input) {
      const name = input.name ?? `${base}.link${k + 1}.cu`;
      const includes = {
        ...(input.includePaths !== undefined ? { includePaths: input.includePaths } : {}),
        ...(input.headers !== undefined ? { headers: input.headers } : {}),
      };
      return {
        program: new Program(input.cuda, 'c++', {
          relocatableDeviceCode: true,
          name,
          ...includes,
          ...(options.arch !== undefined ? { arch: options.arch } : {}),
        }),
      };
    }
    return { code: ObjectCode.fromPtxText(input.ptx, { name: input.name ?? `${base}.link${k + 1}.ptx` }), owned: true };
  });
  return {
    lto,
    target: lto ? 'ltoir' : 'ptx',
    kernel: new Program(ir, 'nvvm', nvvmProgramOptions(options, ir)),
    inputs: planned,
  };
}

/** The Linker of the kernel's code and its inputs' (nvJitLink only, with LTO-IR). */
function linkerOf(p: LinkPlan, objects: readonly ObjectCode[], options: KernelCompileOptions): Linker {
  return new Linker(objects, linkerOptions(options, p.lto));
}

/** nvJitLink's absence, said for a link that needs it. */
function explained(error: unknown, p: LinkPlan, inputs: readonly LinkInput[], options: KernelCompileOptions): unknown {
  if (!p.lto || !(error instanceof LinkerUnavailableError)) return error;
  const ltoir = inputs
    .filter((i): i is ObjectCode => i instanceof ObjectCode && i.codeType === 'ltoir')
    .map((i) => `'${i.name}'`);
  const reason = error.reasons['nvJitLink'] ?? 'not usable';
  return new LinkerUnavailableError(
    {
      nvJitLink: `${reason}; the kernel '${options.name ?? 'kernel'}' links LTO-IR (${ltoir.join(', ')}), which only nvJitLink links (the driver's cuLink* cannot)`,
    },
    { cause: error },
  );
}

function finish(p: LinkPlan, kernelCode: ObjectCode, objectCode: ObjectCode): LinkedKernel {
  return { objectCode, ptx: p.lto ? '' : decoder.decode(kernelCode.code) };
}

/**
 * Compiles NVVM IR and links it with `inputs` into a cubin, blocking; the
 * intermediate code is closed, the inputs given as ObjectCodes are not.
 *
 * @throws {UnsupportedOptionError} for route `'ptx'` (compile-route.ts)
 * @throws `NvvmError`, `NvrtcError` when the kernel or a `{ cuda }` input does not compile
 * @throws {LinkError} when the link fails (an undefined or mistyped symbol); {@link LinkerUnavailableError} where no linker (for LTO-IR: no nvJitLink) is usable
 */
export function linkKernel(ir: string, options: KernelCompileOptions, inputs: readonly LinkInput[]): LinkedKernel {
  const p = plan(ir, options, inputs);
  const calls = { cache: options.cache, logs: options.logs };
  const made: ObjectCode[] = p.inputs.flatMap((i) => ('owned' in i && i.owned ? [i.code] : []));
  try {
    const kernelCode = p.kernel.compile(p.target, { ...calls, checkCompatibility: false });
    made.push(kernelCode);
    const objects = p.inputs.map((i) => {
      if ('code' in i) return i.code;
      const code = i.program.compile(p.target, { ...calls, checkCompatibility: false });
      made.push(code);
      return code;
    });
    try {
      return finish(p, kernelCode, linkerOf(p, [kernelCode, ...objects], options).link('cubin', calls));
    } catch (error) {
      throw explained(error, p, inputs, options);
    }
  } finally {
    for (const code of made) code.close();
  }
}

/** {@link linkKernel} with the compiles and the link off the event loop. */
export async function linkKernelAsync(
  ir: string,
  options: KernelCompileOptions,
  inputs: readonly LinkInput[],
): Promise<LinkedKernel> {
  const p = plan(ir, options, inputs);
  const calls = { cache: options.cache, logs: options.logs };
  const made: ObjectCode[] = p.inputs.flatMap((i) => ('owned' in i && i.owned ? [i.code] : []));
  try {
    const kernelCode = await p.kernel.compileAsync(p.target, { ...calls, checkCompatibility: false });
    made.push(kernelCode);
    const objects: ObjectCode[] = [];
    for (const i of p.inputs) {
      if ('code' in i) {
        objects.push(i.code);
        continue;
      }
      const code = await i.program.compileAsync(p.target, { ...calls, checkCompatibility: false });
      made.push(code);
      objects.push(code);
    }
    try {
      return finish(p, kernelCode, await linkerOf(p, [kernelCode, ...objects], options).linkAsync('cubin', calls));
    } catch (error) {
      throw explained(error, p, inputs, options);
    }
  } finally {
    for (const code of made) code.close();
  }
}
