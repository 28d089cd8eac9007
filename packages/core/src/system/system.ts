import { nvml } from '@cuda-js/bindings';
import { ensureNvml, nvmlSession } from './nvml-session.js';
import { SystemDevice } from './system-device.js';

/**
 * The machine's NVIDIA driver and GPUs as NVML reports them, like cuda.core's
 * `system`: no CUDA context, no `cuInit`. NVML (libnvidia-ml.so.1, installed with
 * the driver) is opened and initialized on first use. Where it cannot be,
 * `available` is false and `unavailableReason` says why; everything else then
 * throws {@link SystemUnavailableError}.
 */
export interface System {
  /** Whether NVML could be opened and initialized (the first read tries). Never throws. */
  readonly available: boolean;
  /** Why `available` is false (what was looked for and where, or NVML's refusal), on one line; undefined when available. Never throws. */
  readonly unavailableReason: string | undefined;
  /** The error underneath `unavailableReason` (pathfinder's `LibraryNotFoundError`, an `NvmlError`, ...). */
  readonly unavailableError: unknown;
  /** The kernel-mode driver's version, `580.65.06` (`nvmlSystemGetDriverVersion`). */
  readonly driverVersion: string;
  /** NVML's version, `13.580.65.06` (`nvmlSystemGetNVMLVersion`). */
  readonly nvmlVersion: string;
  /** The CUDA version that the installed driver library supports (`nvmlSystemGetCudaDriverVersion_v2`: 13000 → 13.0). */
  readonly cudaDriverVersion: { readonly major: number; readonly minor: number };
  /** How many GPUs NVML reports. */
  readonly deviceCount: number;
  /** Every GPU, in NVML's (nvidia-smi's) order. */
  devices(): SystemDevice[];
  /** The GPU of NVML index `index`. */
  device(index: number): SystemDevice;
}

/** See {@link System}. */
export const system: System = Object.freeze({
  get available(): boolean {
    return nvmlSession().available;
  },
  get unavailableReason(): string | undefined {
    const s = nvmlSession();
    return s.available ? undefined : s.reason;
  },
  get unavailableError(): unknown {
    const s = nvmlSession();
    return s.available ? undefined : s.error;
  },
  get driverVersion(): string {
    ensureNvml();
    return nvml.nvmlSystemGetDriverVersion();
  },
  get nvmlVersion(): string {
    ensureNvml();
    return nvml.nvmlSystemGetNVMLVersion();
  },
  get cudaDriverVersion(): { readonly major: number; readonly minor: number } {
    ensureNvml();
    const v = nvml.nvmlSystemGetCudaDriverVersion_v2();
    return { major: Math.floor(v / 1000), minor: (v % 1000) / 10 };
  },
  get deviceCount(): number {
    return SystemDevice.count();
  },
  devices(): SystemDevice[] {
    return Array.from({ length: SystemDevice.count() }, (_, i) => SystemDevice.get(i));
  },
  device(index: number): SystemDevice {
    return SystemDevice.get(index);
  },
});
