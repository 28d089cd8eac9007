// The test-only "third-party CUDA library" of the GPU tests (test/addons/cuda_library.cc).
import { createRequire } from 'node:module';
import { DLPACK_EXCHANGE_API } from '../src/index.js';
import { buildTestAddon } from './build-addon.js';

export interface CudaLibrary {
  init(): number;
  alloc(bytes: number): bigint;
  free(ptr: bigint): void;
  upload(ptr: bigint, data: ArrayBufferView): void;
  download(ptr: bigint, bytes: number): ArrayBuffer;
  memsetAsync(ptr: bigint, value: number, count: number, stream: bigint): void;
  streamCreate(): bigint;
  streamDestroy(stream: bigint): void;
  streamSynchronize(stream: bigint): void;
  streamDone(stream: bigint): boolean;
  waitStream(producer: bigint, consumer: bigint): void;
  pointerDevice(ptr: bigint): number;
  blockStream(stream: bigint): object;
  openGate(gate: object): void;
  sumSlot(slot: object): number;
  deviceTensor(ptr: bigint, n: number): object;
  setCurrentStream(stream: bigint): void;
  exchangeCounts(): { exported: number; deleted: number };
  readonly api: object;
}

export const cudaLibraryBuild = buildTestAddon('cuda_library', ['-ldl']);

export function loadCudaLibrary(): CudaLibrary {
  if (cudaLibraryBuild.path === undefined) throw new Error(cudaLibraryBuild.reason);
  return createRequire(import.meta.url)(cudaLibraryBuild.path) as CudaLibrary;
}

/** The library's device tensor class, with its exchange API on the type. */
export function deviceTensorClass(lib: CudaLibrary) {
  return class LibraryTensor {
    constructor(readonly handle: object) {}
    [DLPACK_EXCHANGE_API](): object {
      return lib.api;
    }
  };
}
