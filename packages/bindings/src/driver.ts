import * as generated from './generated/driver.js';
import type {
  CUgraphEdgeData,
  CUgraphNodeParams,
  CUlaunchAttributeValue,
  GeneratedDriverFunctions,
} from './generated/driver.js';
import type {
  CUcontext,
  CUdeviceptr,
  CUevent,
  CUfunction,
  CUgraph,
  CUgraphNode,
  CUlibrary,
  CUlinkState,
  CUmodule,
  CUstream,
} from './generated/handles.js';
import { namespaceFallback, native } from './native.js';
import { enumsOf, type EnumsOf } from './enums-of.js';
import type { HostMemory, NullHandle } from './types.js';

declare const kernelParamsKind: unique symbol;

/** The `void*[]` of a kernel's parameters over one reusable buffer (from {@link HandwrittenDriverFunctions.createKernelParams}). */
export interface KernelParams {
  readonly [kernelParamsKind]: true;
}

declare const packedLaunchKind: unique symbol;

/**
 * A kernel's parameter table and launch header over one reusable buffer (from
 * {@link HandwrittenDriverFunctions.createPackedLaunch}): launched by
 * {@link HandwrittenDriverFunctions.cuLaunchKernelPacked}, and accepted
 * wherever a {@link KernelParams} is.
 */
export interface PackedLaunch extends KernelParams {
  readonly [packedLaunchKind]: true;
}

/**
 * The layout of a packed launch's header, in bytes from its start (which is
 * 8-byte aligned): the `u32` dimensions and dynamic shared memory, the `u64`
 * CUstream and the `u64` CUcontext the launch must find current. Little-endian,
 * as the host writes it.
 */
export const PACKED_LAUNCH_HEADER = Object.freeze({
  gridDimX: 0,
  gridDimY: 4,
  gridDimZ: 8,
  blockDimX: 12,
  blockDimY: 16,
  blockDimZ: 20,
  sharedMemBytes: 24,
  hStream: 32,
  context: 40,
  /** The header's size. */
  bytes: 48,
} as const);

/**
 * The layout of one record of a launch queue
 * ({@link HandwrittenDriverFunctions.cuLaunchKernelQueue}), in bytes from its
 * start (8-byte aligned): the `u32` index of its packed launch in the
 * `launches` array, the `u32` size of the whole record (a multiple of 8),
 * then, from `body`, a copy of the packed launch's buffer from its first byte
 * through its {@link PACKED_LAUNCH_HEADER} (the parameters at their offsets,
 * the header at its offset). Little-endian.
 */
export const LAUNCH_QUEUE_RECORD = Object.freeze({
  launch: 0,
  bytes: 4,
  /** Where the copy of the packed launch's buffer starts. */
  body: 8,
} as const);

/**
 * A launch as a function of no arguments (from
 * {@link HandwrittenDriverFunctions.createLaunchFunction}): it owns the bytes
 * of its parameters and header, which JS writes through `buffer`; calling it
 * launches as {@link HandwrittenDriverFunctions.cuLaunchKernelPacked} does
 * (undefined when launched; the current context, `0n` for none, when that
 * is not the header's context and nothing was launched).
 */
export interface LaunchFunction {
  (): CUcontext | NullHandle | undefined;
  /** The launch's parameters and header, at the offsets it was made with (native memory: detaching it leaves the launch's copy in place). */
  readonly buffer: ArrayBuffer;
}

/** `CUlaunchConfig` for {@link HandwrittenDriverFunctions.cuLaunchKernelEx}; dimensions left out are 1. */
export interface LaunchConfig {
  gridDimX?: number;
  gridDimY?: number;
  gridDimZ?: number;
  blockDimX?: number;
  blockDimY?: number;
  blockDimZ?: number;
  sharedMemBytes?: number;
  hStream?: CUstream | NullHandle;
  /** Launch attributes: `id` from `CUlaunchAttributeID`; `value` the union's fields, or a number for its first int. */
  attrs?: readonly { id: number; value: CUlaunchAttributeValue | number }[];
}

/** P2P tokens of `CU_POINTER_ATTRIBUTE_P2P_TOKENS`. */
export interface P2PTokens {
  p2pToken: bigint;
  vaSpaceToken: number;
}

/** The driver functions written by hand: launch, host callbacks, typed attributes, and the Promise forms. */
export interface HandwrittenDriverFunctions {
  /**
   * Builds once the `void*[]` that points at each kernel argument inside
   * `buffer` (at `offsets`, in bytes; argument `i` is `sizes[i]` bytes).
   * Every argument's bytes `[offset, offset + size)` must lie in `buffer`
   * and overlap no other's (a RangeError otherwise). `sizes` are checked
   * against the buffer only, not against the kernel, which this call does not
   * know: at each launch the driver reads from each pointer as many bytes as
   * the kernel's parameter has, whatever `sizes` says, so they must be the
   * kernel's own (core's launch plans check them against cuFuncGetParamInfo /
   * cuKernelGetParamInfo). Write argument values into `buffer` before each
   * launch; the result keeps `buffer` alive.
   */
  createKernelParams(
    buffer: ArrayBuffer | ArrayBufferView,
    offsets: readonly number[],
    sizes: readonly number[],
  ): KernelParams;
  /**
   * {@link createKernelParams} with a launch header: `f` (a CUfunction, or a
   * CUkernel) is fixed, and the dimensions, shared memory, stream and the
   * context the launch expects are read at each launch from the
   * {@link PACKED_LAUNCH_HEADER} at `headerOffset` of `buffer` (8-byte
   * aligned, overlapping no parameter's bytes). Write the header and the
   * arguments into `buffer`, then call {@link cuLaunchKernelPacked}.
   */
  createPackedLaunch(
    f: CUfunction,
    buffer: ArrayBuffer | ArrayBufferView,
    offsets: readonly number[],
    sizes: readonly number[],
    headerOffset: number,
  ): PackedLaunch;
  /**
   * `cuLaunchKernel` of a packed launch, one native call of one argument.
   * Launches only when the current context is the header's `context`, and
   * then returns undefined; otherwise launches nothing and returns the current
   * context (`0n` for none), so that the caller checks its arguments against
   * that context and launches again.
   */
  cuLaunchKernelPacked(launch: PackedLaunch): CUcontext | NullHandle | undefined;
  /**
   * {@link createPackedLaunch} over `byteLength` bytes that the launch owns
   * (the result's `buffer`), as a function of no arguments: the cheapest
   * launch there is, one call with nothing to look up or check per call.
   * Null where the JS engine allows no ArrayBuffer over native memory (a V8
   * sandbox); use createPackedLaunch there.
   */
  createLaunchFunction(
    f: CUfunction,
    byteLength: number,
    offsets: readonly number[],
    sizes: readonly number[],
    headerOffset: number,
  ): LaunchFunction | null;
  /**
   * Launches every record of a launch queue ({@link LAUNCH_QUEUE_RECORD}) in
   * `queue`'s first `byteLength` bytes, in order, in one native call: each
   * record names a launch of `launches` (a launch function or a packed
   * launch: its function and parameter
   * layout) and carries its own parameters and header, whose `context` must be
   * current. Each record is checked before it is launched; the first that
   * fails (a bad record, another context, a driver error) stops the loop and
   * throws with `launchIndex` set to its index, the launches before it being
   * enqueued. Returns how many launches were enqueued.
   */
  cuLaunchKernelQueue(
    queue: ArrayBuffer | ArrayBufferView,
    byteLength: number,
    launches: readonly (LaunchFunction | PackedLaunch)[],
  ): number;
  /**
   * Does nothing, natively: the cost of one call into the addon, for
   * benchmarks. Given a packed launch, it also does what
   * {@link cuLaunchKernelPacked} does before it asks the driver anything.
   */
  launchCrossingProbe(launch?: PackedLaunch): void;
  /** `cuLaunchKernel`, one native call with no per-argument conversion. */
  cuLaunchKernel(
    f: CUfunction,
    gridDimX: number,
    gridDimY: number,
    gridDimZ: number,
    blockDimX: number,
    blockDimY: number,
    blockDimZ: number,
    sharedMemBytes: number,
    hStream: CUstream | NullHandle,
    kernelParams: KernelParams | null,
  ): void;
  /** `cuLaunchKernelEx` with a plain-object config. */
  cuLaunchKernelEx(config: LaunchConfig, f: CUfunction, kernelParams: KernelParams | null): void;
  /**
   * `cuLaunchHostFunc`: `callback` runs on the JS thread that called (the main thread or a Worker) once the stream reaches it;
   * the driver thread is not blocked. A Worker that ends first: the driver's call later finds it gone and runs nothing.
   */
  cuLaunchHostFunc(hStream: CUstream | NullHandle, callback: () => void): void;
  /** `cuStreamAddCallback`: `callback(stream, status)` runs on the JS thread that called, as for {@link cuLaunchHostFunc}. */
  cuStreamAddCallback(
    hStream: CUstream | NullHandle,
    callback: (stream: CUstream, status: number) => void,
    flags?: number,
  ): void;
  /**
   * `cuGraphAddHostNode` with a JS function: `callback` runs on the JS thread
   * that called each time a launch of the graph reaches the node (the driver thread
   * is not blocked), in the order the driver reaches the graphs' host nodes.
   * The graph owns it (a CUDA user object): it is released once the graph,
   * its clones and its executable graphs are destroyed. `cuLaunchHostFunc` on
   * a stream that is being captured makes the same kind of host function.
   */
  cuGraphAddHostNode(
    hGraph: CUgraph | NullHandle,
    dependencies: readonly (CUgraphNode | NullHandle)[] | ArrayBufferView | null,
    callback: () => void,
  ): CUgraphNode;
  /** `cuStreamGetCaptureInfo_v3`, with the capture's current dependencies (and their edge data, null when all are default) copied out. */
  cuStreamGetCaptureInfo(hStream: CUstream | NullHandle): {
    captureStatus_out: number;
    id_out: bigint;
    graph_out: CUgraph;
    dependencies_out: CUgraphNode[];
    edgeData_out: CUgraphEdgeData[] | null;
    numDependencies_out: bigint;
  };
  /** `cuStreamUpdateCaptureDependencies_v2`: `flags` is `CU_STREAM_ADD_CAPTURE_DEPENDENCIES` or `CU_STREAM_SET_CAPTURE_DEPENDENCIES`; `dependencyData` null or one per node. */
  cuStreamUpdateCaptureDependencies(
    hStream: CUstream | NullHandle,
    dependencies: readonly (CUgraphNode | NullHandle)[] | ArrayBufferView | null,
    dependencyData: readonly CUgraphEdgeData[] | null,
    flags: number,
  ): void;
  /** `cuGraphAddNode_v2`; `phGraph_out` holds a conditional node's body graphs (owned by the node), copied out; empty for other nodes. */
  cuGraphAddNode(
    hGraph: CUgraph | NullHandle,
    dependencies: readonly (CUgraphNode | NullHandle)[] | ArrayBufferView | null,
    dependencyData: readonly CUgraphEdgeData[] | null,
    nodeParams: CUgraphNodeParams,
  ): { phGraphNode: CUgraphNode; nodeParams: CUgraphNodeParams; phGraph_out: CUgraph[] };
  /**
   * `cuLinkCreate_v2` (array counts come from the arrays). The option arrays are kept until
   * `cuLinkDestroy`, since the driver writes the filled log sizes into `optionValues` at `cuLinkComplete`.
   */
  cuLinkCreate(
    options?: readonly number[] | ArrayBufferView | null,
    optionValues?: readonly (bigint | number)[] | ArrayBufferView | null,
  ): CUlinkState;
  /** `cuLinkDestroy`: also frees the option arrays kept for the link state. */
  cuLinkDestroy(state: CUlinkState | NullHandle): void;
  /** `cuPointerGetAttribute`: the attribute's value, typed by attribute (bigint for addresses, handles and 64-bit values). */
  cuPointerGetAttribute(attribute: number, ptr: CUdeviceptr | bigint): number | bigint | P2PTokens;
  /** `cuStreamSynchronize` on a worker thread. */
  cuStreamSynchronizeAsync(hStream: CUstream | NullHandle): Promise<void>;
  /** `cuEventSynchronize` on a worker thread. */
  cuEventSynchronizeAsync(hEvent: CUevent): Promise<void>;
  /** `cuCtxSynchronize` on a worker thread, for the context current on the calling thread. */
  cuCtxSynchronizeAsync(): Promise<void>;
  /** `cuModuleLoadData` on a worker thread, into the context current on the calling thread (the image is copied). */
  cuModuleLoadDataAsync(image: HostMemory | string): Promise<CUmodule>;
  /** `cuLibraryLoadData` on a worker thread (context-independent; the code is copied). */
  cuLibraryLoadDataAsync(
    code: HostMemory | string,
    jitOptions?: readonly number[] | null,
    jitOptionsValues?: readonly (bigint | number)[] | null,
    libraryOptions?: readonly number[] | null,
    libraryOptionValues?: readonly (bigint | number)[] | null,
  ): Promise<CUlibrary>;
}

/** Every enum of cuda.h, by name, with reverse lookup. */
export type DriverEnums = Omit<EnumsOf<typeof generated>, 'constants'>;

/**
 * The integer `#define`s of cuda.h (`CU_MEMHOSTALLOC_PORTABLE`, `CU_DEVICE_CPU`,
 * `CU_STREAM_LEGACY`, ...), generated from the header: numbers, and branded
 * bigints for the handles and pointers.
 */
export type DriverConstants = typeof generated.constants;

/** The CUDA driver API: every function of cuda.h under its C name, its enums, and its `#define` constants as `constants`. */
export type Driver = GeneratedDriverFunctions &
  HandwrittenDriverFunctions &
  DriverEnums & { readonly constants: DriverConstants };

/**
 * The CUDA driver API (libcuda, opened on the first call). Functions take
 * their C parameters in order, less out-parameters (returned) and array counts
 * (taken from the arrays). Failures throw {@link CudaError}.
 */
export const driver: Driver = Object.freeze(
  Object.assign(Object.create(namespaceFallback.driver) as object, native.driver, enumsOf(generated), {
    constants: generated.constants,
  }),
) as unknown as Driver;
