/** The `DLDeviceType` codes of DLPack 1.3. */
export const DLDeviceType = {
  CPU: 1,
  CUDA: 2,
  /** Pinned host memory (`cuMemAllocHost`, `cudaMallocHost`): readable from host and device. */
  CUDAHost: 3,
  OpenCL: 4,
  Vulkan: 7,
  Metal: 8,
  VPI: 9,
  ROCM: 10,
  ROCMHost: 11,
  ExtDev: 12,
  /** Managed memory (`cuMemAllocManaged`): readable from host and device. */
  CUDAManaged: 13,
  OneAPI: 14,
  WebGPU: 15,
  Hexagon: 16,
  MAIA: 17,
  Trn: 18,
} as const;

/** A `DLDeviceType` code. */
export type DLDeviceTypeCode = (typeof DLDeviceType)[keyof typeof DLDeviceType];

/** Where memory lives: a `DLDeviceType` code and a device ordinal (0 for host, pinned and managed memory). */
export interface Device {
  readonly type: number;
  readonly id: number;
}

const NAMES = new Map<number, string>(Object.entries(DLDeviceType).map(([name, code]) => [code, name]));

/** The name of a `DLDeviceType` code (`CUDA`), or `unknown(<code>)`. */
export function deviceTypeName(type: number): string {
  return NAMES.get(type) ?? `unknown(${type})`;
}

/** The host device `{ type: CPU, id: 0 }`, shared by every host view. */
export const CPU_DEVICE: Device = Object.freeze({ type: DLDeviceType.CPU, id: 0 });

/** Whether a CUDA kernel can read memory of this device type (device, pinned and managed memory). */
export function isCudaAccessible(type: number): boolean {
  return type === DLDeviceType.CUDA || type === DLDeviceType.CUDAHost || type === DLDeviceType.CUDAManaged;
}

/** Whether the host can read memory of this device type through a plain address. */
export function isHostAccessible(type: number): boolean {
  return (
    type === DLDeviceType.CPU ||
    type === DLDeviceType.CUDAHost ||
    type === DLDeviceType.CUDAManaged ||
    type === DLDeviceType.ROCMHost
  );
}

/**
 * A device `{ type, id }` from untrusted values, each read once by the caller:
 * the type a positive int32, the id a non-negative int32. Returns undefined
 * when either is not (the caller throws its own named error).
 */
export function checkedDevice(type: unknown, id: unknown): Device | undefined {
  if (typeof type !== 'number' || !Number.isInteger(type) || type < 1 || type > 0x7fffffff) return undefined;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) return undefined;
  return type === DLDeviceType.CPU && id === 0 ? CPU_DEVICE : Object.freeze({ type, id: id === 0 ? 0 : id });
}
