// The part of @cuda-js/bindings (docs/bindings-api.md) that this package
// calls, in one place: every other file reaches the C APIs through `cuda`.
import * as bindings from '@cuda-js/bindings';
import { releaseAsync, releaseInBackground } from '@cuda-js/bindings/runtime';
import type {
  CUcontext,
  CUdeviceptr,
  CUfunction,
  CUkernel,
  CUlibrary,
  CUlinkState,
  DriverEnums,
  NvJitLink,
  nvJitLinkHandle,
  nvrtcProgram,
  nvvmProgram,
} from '@cuda-js/bindings';

export type { CUcontext, CUfunction, CUkernel, CUlibrary, nvJitLinkHandle, nvrtcProgram, nvvmProgram };
export { OwnedHandle, type HandleRelease } from '@cuda-js/bindings/runtime';

/** The names of a generated enum's members (its C constants), without the reverse-lookup keys. */
export type EnumMemberName<E> = Extract<keyof E, string>;

/** A `size_t` out-value: a bigint from the bindings (a number is accepted too). */
type Size = bigint | number;

export interface DriverApi {
  cuInit(flags: number): void;
  cuDriverGetVersion(): number;
  cuDeviceGetCount(): number;
  cuDeviceGet(ordinal: number): number;
  cuDeviceGetAttribute(attrib: number, dev: number): number;
  cuCtxGetCurrent(): CUcontext;
  cuCtxGetDevice(): number;
  cuLibraryLoadData(
    code: Uint8Array | string,
    jitOptions?: readonly number[],
    jitOptionValues?: readonly (bigint | number)[],
    libraryOptions?: readonly number[],
    libraryOptionValues?: readonly (bigint | number)[],
  ): CUlibrary;
  cuLibraryLoadDataAsync(
    code: Uint8Array | string,
    jitOptions?: readonly number[],
    jitOptionValues?: readonly (bigint | number)[],
    libraryOptions?: readonly number[],
    libraryOptionValues?: readonly (bigint | number)[],
  ): Promise<CUlibrary>;
  cuLibraryUnload(library: CUlibrary): void;
  cuLibraryGetKernel(library: CUlibrary, name: string): CUkernel;
  cuLibraryGetKernelCount(library: CUlibrary): number;
  cuLibraryEnumerateKernels(numKernels: number, library: CUlibrary): CUkernel[];
  cuKernelGetName(kernel: CUkernel): string;
  cuKernelGetFunction(kernel: CUkernel): CUfunction;
  cuKernelGetAttribute(attrib: number, kernel: CUkernel, dev: number): number;
  cuKernelSetAttribute(attrib: number, value: number, kernel: CUkernel, dev: number): void;
  cuKernelGetParamInfo(kernel: CUkernel, index: number): { paramOffset: Size; paramSize: Size };
  cuOccupancyMaxActiveBlocksPerMultiprocessor(f: CUfunction, blockSize: number, dynamicSmemSize: number): number;
  cuOccupancyMaxPotentialBlockSize(
    f: CUfunction,
    blockSizeToDynamicSmemSize: null,
    dynamicSmemSize: number,
    blockSizeLimit: number,
  ): { minGridSize: number; blockSize: number };
  cuOccupancyAvailableDynamicSMemPerBlock(f: CUfunction, numBlocks: number, blockSize: number): Size;
  cuOccupancyMaxPotentialClusterSize(f: CUfunction, config: object): number;
  cuOccupancyMaxActiveClusters(f: CUfunction, config: object): number;
  cuLinkCreate(options?: readonly number[], optionValues?: readonly (bigint | number)[]): CUlinkState;
  cuLinkAddData(state: CUlinkState, type: number, data: Uint8Array | string, name: string): void;
  cuLinkComplete(state: CUlinkState): Uint8Array;
  cuLinkDestroy(state: CUlinkState): void;
  cuMemAllocHost(bytes: number): bigint;
  cuMemFreeHost(p: bigint): void;
  cuMemHostGetDevicePointer(p: bigint, flags: number): CUdeviceptr;
  cuMemcpyDtoH(dst: Uint8Array, src: CUdeviceptr, bytes: number): void;
  readonly CUdevice_attribute: DriverEnums['CUdevice_attribute'];
  readonly CUfunction_attribute: DriverEnums['CUfunction_attribute'];
  readonly CUjitInputType: DriverEnums['CUjitInputType'];
  readonly CUjit_option: DriverEnums['CUjit_option'];
  readonly CUlaunchAttributeID: DriverEnums['CUlaunchAttributeID'];
}

export interface NvrtcApi {
  nvrtcVersion(): { major: number; minor: number };
  nvrtcGetSupportedArchs(): number[];
  nvrtcCreateProgram(src: string, name: string, headers: string[], includeNames: string[]): nvrtcProgram;
  nvrtcDestroyProgram(prog: nvrtcProgram): void;
  nvrtcAddNameExpression(prog: nvrtcProgram, expression: string): void;
  nvrtcCompileProgram(prog: nvrtcProgram, options: string[]): void;
  nvrtcCompileProgramAsync(prog: nvrtcProgram, options: string[]): Promise<void>;
  nvrtcGetPTX(prog: nvrtcProgram): string;
  nvrtcGetCUBIN(prog: nvrtcProgram): Uint8Array;
  nvrtcGetLTOIR(prog: nvrtcProgram): Uint8Array;
  nvrtcGetProgramLog(prog: nvrtcProgram): string;
  nvrtcGetLoweredName(prog: nvrtcProgram, expression: string): string;
}

export interface NvvmApi {
  nvvmVersion(): { major: number; minor: number };
  nvvmIRVersion(): { majorIR: number; minorIR: number; majorDbg: number; minorDbg: number };
  nvvmCreateProgram(): nvvmProgram;
  nvvmDestroyProgram(prog: nvvmProgram): void;
  nvvmAddModuleToProgram(prog: nvvmProgram, buffer: string | Uint8Array, name: string): void;
  nvvmLazyAddModuleToProgram(prog: nvvmProgram, buffer: string | Uint8Array, name: string): void;
  nvvmVerifyProgram(prog: nvvmProgram, options: string[]): void;
  nvvmCompileProgram(prog: nvvmProgram, options: string[]): void;
  nvvmCompileProgramAsync(prog: nvvmProgram, options: string[]): Promise<void>;
  nvvmGetCompiledResult(prog: nvvmProgram): Uint8Array;
  nvvmGetProgramLog(prog: nvvmProgram): string;
}

export interface NvJitLinkApi {
  nvJitLinkVersion(): { major: number; minor: number };
  nvJitLinkCreate(options: string[]): nvJitLinkHandle;
  nvJitLinkDestroy(handle: nvJitLinkHandle): void;
  nvJitLinkAddData(handle: nvJitLinkHandle, inputType: number, data: Uint8Array | string, name: string): void;
  nvJitLinkComplete(handle: nvJitLinkHandle): void;
  nvJitLinkCompleteAsync(handle: nvJitLinkHandle): Promise<void>;
  nvJitLinkGetLinkedCubin(handle: nvJitLinkHandle): Uint8Array;
  nvJitLinkGetLinkedPtx(handle: nvJitLinkHandle): string;
  nvJitLinkGetErrorLog(handle: nvJitLinkHandle): string;
  nvJitLinkGetInfoLog(handle: nvJitLinkHandle): string;
  readonly nvJitLinkInputType: NvJitLink['nvJitLinkInputType'];
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
  /** Queues a release that may wait for the device on the bindings' release thread (finalizers). */
  releaseInBackground(fn: 'cuLibraryUnload', handle: CUlibrary): void;
  /** The same release as a Promise (the non-blocking close). */
  releaseAsync(fn: 'cuLibraryUnload', handle: CUlibrary): Promise<void>;
}

/**
 * The bindings (the C API of the main entry, the releases of
 * `@cuda-js/bindings/runtime`), seen through the subset above. Assigned
 * without a cast, so that the compiler checks this subset against the
 * bindings' own types.
 */
export const cuda: BindingsApi = {
  driver: bindings.driver,
  nvrtc: bindings.nvrtc,
  nvvm: bindings.nvvm,
  nvjitlink: bindings.nvjitlink,
  loadedLibraries: bindings.loadedLibraries,
  releaseInBackground,
  releaseAsync,
};

/** The C error name a bindings error carries (`CUDA_ERROR_NO_DEVICE`), if it is one. */
export function errorCodeName(error: unknown): string | undefined {
  const name = (error as { codeName?: unknown } | null)?.codeName;
  return typeof name === 'string' ? name : undefined;
}
