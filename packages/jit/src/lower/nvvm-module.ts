// The module around a kernel function, in the dialect libNVVM reads: LLVM 7
// text with typed pointers, NVPTX's 64-bit data layout and triple, the
// kernel marked in `!nvvm.annotations`, and the IR version it is written in;
// the module's globals and declarations come before the kernel.

/** An NVVM IR version, as `!nvvmir.version` states it. */
export interface IrVersion {
  readonly major: number;
  readonly minor: number;
}

/** What libNVVM 12 and 13 read (their `nvvmIRVersion()`). */
export const DEFAULT_IR_VERSION: IrVersion = Object.freeze({ major: 2, minor: 0 });

/** The data layout that the NVVM IR specification gives for 64-bit targets. */
export const NVPTX64_DATA_LAYOUT =
  'e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64';

export const NVPTX64_TRIPLE = 'nvptx64-nvidia-cuda';

export interface KernelModule {
  /** The kernel's symbol (`@name`). */
  readonly symbol: string;
  readonly parameterTypes: readonly string[];
  /** `%name`s of the parameters, in order. */
  readonly parameterNames: readonly string[];
  /** The function body, `{ … }`. */
  readonly body: string;
  /** Other functions of the module (`define internal ...`), before the kernel. */
  readonly functions?: readonly string[];
  /** `declare` lines of what the body calls. */
  readonly declarations: readonly string[];
  /** Global definitions (`@name = …`): shared and constant arrays, strings, counters. */
  readonly globals?: readonly string[];
  readonly irVersion: IrVersion;
  /** A first comment line saying where the module came from. */
  readonly comment?: string;
}

export function kernelModuleText(module: KernelModule): string {
  const { symbol, parameterTypes, parameterNames, irVersion } = module;
  const parameters = parameterTypes.map((t, i) => `${t} ${parameterNames[i]!}`).join(', ');
  const functionType = `void (${parameterTypes.join(', ')})*`;
  const lines = [
    ...(module.comment ? [`; ${module.comment}`] : []),
    `target datalayout = "${NVPTX64_DATA_LAYOUT}"`,
    `target triple = "${NVPTX64_TRIPLE}"`,
    '',
    ...(module.globals ?? []),
    ...(module.globals && module.globals.length > 0 ? [''] : []),
    ...module.declarations,
    ...(module.declarations.length > 0 ? [''] : []),
    ...(module.functions ?? []).flatMap((f) => [f, '']),
    `define void @${symbol}(${parameters}) ${module.body}`,
    '',
    '!nvvm.annotations = !{!0}',
    `!0 = !{${functionType} @${symbol}, !"kernel", i32 1}`,
    '!nvvmir.version = !{!1}',
    `!1 = !{i32 ${irVersion.major}, i32 ${irVersion.minor}}`,
    '',
  ];
  return lines.join('\n');
}
