// The part of @cuda-js/bindings (docs/bindings-api.md) that this package
// calls, in one place: every other file reaches the C APIs through `cuda`.
import * as bindings from '@cuda-js/bindings';

/** An enum of the bindings: name → value, with reverse lookup. */
export type CEnum = Readonly<Record<string, number | string>>;

/** A `size_t` out-value: a bigint from the bindings (a number is accepted too). */
type Size = bigint | number;

export interface DriverApi {
  cuInit(flags: number): void;
  cuDriverGetVersion(): number;
  cuDeviceGetCount(): number;
  cuDeviceGet(ordinal: number): number;
  cuDeviceGetAttribute(attrib: number, dev: number): number;
  cuCtxGetCurrent(): bigint;
  cuCtxGetDevice(): number;
  cuLibraryLoadData(code: Uint8Array | string, jitOptions?: number[], jitOptionValues?: unknown[], libraryOptions?: number[], libraryOptionValues?: unknown[]): bigint;
  cuLibraryLoadDataAsync(code: Uint8Array | string, jitOptions?: number[], jitOptionValues?: unknown[], libraryOptions?: number[], libraryOptionValues?: unknown[]): Promise<bigint>;
  cuLibraryUnload(library: bigint): void;
  cuLibraryGetKernel(library: bigint, name: string): bigint;
  cuLibraryGetKernelCount(library: bigint): number;
  cuKernelGetName(kernel: bigint): string;
  cuKernelGetFunction(kernel: bigint): bigint;
  cuKernelGetAttribute(attrib: number, kernel: bigint, dev: number): number;
  cuKernelSetAttribute(attrib: number, value: number, kernel: bigint, dev: number): void;
  cuKernelGetParamInfo(kernel: bigint, index: number): { paramOffset: Size; paramSize: Size };
  cuOccupancyMaxActiveBlocksPerMultiprocessor(f: bigint, blockSize: number, dynamicSmemSize: number): number;
  cuOccupancyMaxPotentialBlockSize(f: bigint, blockSizeToDynamicSmemSize: null, dynamicSmemSize: number, blockSizeLimit: number): { minGridSize: number; blockSize: number };
  cuOccupancyAvailableDynamicSMemPerBlock(f: bigint, numBlocks: number, blockSize: number): Size;
  cuOccupancyMaxPotentialClusterSize(f: bigint, config: object): number;
  cuOccupancyMaxActiveClusters(f: bigint, config: object): number;
  cuLinkCreate(options?: number[], optionValues?: unknown[]): bigint;
  cuLinkAddData(state: bigint, type: number, data: Uint8Array | string, name: string): void;
  cuLinkComplete(state: bigint): Uint8Array;
  cuLinkDestroy(state: bigint): void;
  readonly CUdevice_attribute: CEnum;
  readonly CUfunction_attribute: CEnum;
  readonly CUjitInputType: CEnum;
  readonly CUjit_option: CEnum;
  readonly CUlaunchAttributeID: CEnum;
}

export interface NvrtcApi {
  nvrtcVersion(): { major: number; minor: number };
  nvrtcGetSupportedArchs(): number[];
  nvrtcCreateProgram(src: string, name: string, headers: string[], includeNames: string[]): bigint;
  nvrtcDestroyProgram(prog: bigint): void;
  nvrtcAddNameExpression(prog: bigint, expression: string): void;
  nvrtcCompileProgram(prog: bigint, options: string[]): void;
  nvrtcCompileProgramAsync(prog: bigint, options: string[]): Promise<void>;
  nvrtcGetPTX(prog: bigint): string;
  nvrtcGetCUBIN(prog: bigint): Uint8Array;
  nvrtcGetLTOIR(prog: bigint): Uint8Array;
  nvrtcGetProgramLog(prog: bigint): string;
  nvrtcGetLoweredName(prog: bigint, expression: string): string;
}

export interface NvvmApi {
  nvvmVersion(): { major: number; minor: number };
  nvvmIRVersion(): { majorIR: number; minorIR: number; majorDbg: number; minorDbg: number };
  nvvmCreateProgram(): bigint;
  nvvmDestroyProgram(prog: bigint): void;
  nvvmAddModuleToProgram(prog: bigint, buffer: string | Uint8Array, name: string): void;
  nvvmLazyAddModuleToProgram(prog: bigint, buffer: string | Uint8Array, name: string): void;
  nvvmCompileProgram(prog: bigint, options: string[]): void;
  nvvmCompileProgramAsync(prog: bigint, options: string[]): Promise<void>;
  nvvmGetCompiledResult(prog: bigint): Uint8Array;
  nvvmGetProgramLog(prog: bigint): string;
}

export interface NvJitLinkApi {
  nvJitLinkVersion(): { major: number; minor: number };
  nvJitLinkCreate(options: string[]): bigint;
  nvJitLinkDestroy(handle: bigint): void;
  nvJitLinkAddData(handle: bigint, inputType: number, data: Uint8Array | string, name: string): void;
  nvJitLinkComplete(handle: bigint): void;
  nvJitLinkCompleteAsync(handle: bigint): Promise<void>;
  nvJitLinkGetLinkedCubin(handle: bigint): Uint8Array;
  nvJitLinkGetLinkedPtx(handle: bigint): string;
  nvJitLinkGetErrorLog(handle: bigint): string;
  nvJitLinkGetInfoLog(handle: bigint): string;
  readonly nvJitLinkInputType: CEnum;
}

/** A library the bindings opened, and where from. */
export interface LoadedLibrary {
  readonly name: string;
  readonly path: string;
  readonly foundVia: string;
  readonly version: string | undefined;
}

export interface BindingsApi {
  readonly driver: DriverApi;
  readonly nvrtc: NvrtcApi;
  readonly nvvm: NvvmApi;
  readonly nvjitlink: NvJitLinkApi;
  loadedLibraries(): readonly LoadedLibrary[];
}

/** The bindings, seen through the subset above. */
export const cuda: BindingsApi = bindings as unknown as BindingsApi;

/** The numeric value of an enum member, looked up by its C name. */
export function enumValue(e: CEnum, name: string): number {
  const value = e[name];
  if (typeof value !== 'number') throw new Error(`@cuda-js/bindings has no enum member ${name}`);
  return value;
}

/** The C error name a bindings error carries (`CUDA_ERROR_NO_DEVICE`), if it is one. */
export function errorCodeName(error: unknown): string | undefined {
  const name = (error as { codeName?: unknown } | null)?.codeName;
  return typeof name === 'string' ? name : undefined;
}
