import { Device, deviceCount, driverVersion, system, type SystemDeviceInfo } from '@cuda-js/core';

/** One CUDA device as `cuda-js info` shows it. */
export interface DeviceSummary {
  readonly ordinal: number;
  readonly name: string;
  readonly arch: string;
  readonly totalMemoryGiB: number;
  readonly uuid: string;
  readonly pciBusId: string;
}

/** One GPU as NVML reports it, for `cuda-js info` (plain JSON values: bytes as numbers, watts, MHz, °C; null where the GPU does not report a figure). */
export interface NvmlDeviceSummary {
  readonly index: number;
  readonly name: string;
  readonly uuid: string;
  readonly memory: { readonly totalBytes: number; readonly freeBytes: number; readonly usedBytes: number };
  readonly utilization: { readonly gpu: number; readonly memory: number } | null;
  readonly clocksMHz: {
    readonly graphics: number | null;
    readonly sm: number | null;
    readonly memory: number | null;
    readonly maxSm: number | null;
    readonly maxMemory: number | null;
  };
  readonly temperatureC: number | null;
  readonly power: { readonly usageW: number | null; readonly limitW: number | null };
  readonly pciBusId: string;
  readonly computeCapability: string;
  readonly nvlink: { readonly links: number; readonly active: number; readonly version: string | null };
}

/** What NVML (the NVIDIA Management Library, installed with the driver) says, or why it could not be asked. */
export type NvmlReport =
  | {
      readonly available: true;
      readonly driverVersion: string;
      readonly nvmlVersion: string;
      readonly cudaDriverVersion: string;
      readonly devices: readonly NvmlDeviceSummary[];
    }
  | { readonly available: false; readonly reason: string };

/** The driver and its devices, or why they could not be read. */
export interface SystemReport {
  readonly driverVersion?: string;
  readonly devices: readonly DeviceSummary[];
  /** `peerAccess[i][j]`: whether device i can address device j's memory (cuDeviceCanAccessPeer; true on the diagonal); empty without devices. */
  readonly peerAccess: readonly (readonly boolean[])[];
  /** NVML's view of the machine (`system` of @cuda-js/core), or why there is none. */
  readonly nvml: NvmlReport;
  /** Why the driver, the devices or NVML could not be read (no driver library, no device, ...), each whole (a missing library's message lists every place tried, one a line). */
  readonly problems: readonly string[];
}

/** The whole error: its class and its message, every line of it. */
function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

function nvmlDevice(d: SystemDeviceInfo): NvmlDeviceSummary {
  return {
    index: d.index,
    name: d.name,
    uuid: d.uuid,
    memory: { totalBytes: Number(d.memory.total), freeBytes: Number(d.memory.free), usedBytes: Number(d.memory.used) },
    utilization: orNull(d.utilization),
    clocksMHz: {
      graphics: orNull(d.clocks.graphics),
      sm: orNull(d.clocks.sm),
      memory: orNull(d.clocks.memory),
      maxSm: orNull(d.clocks.max.sm),
      maxMemory: orNull(d.clocks.max.memory),
    },
    temperatureC: orNull(d.temperature),
    power: { usageW: orNull(d.power.usage), limitW: orNull(d.power.limit) },
    pciBusId: d.pci.busId,
    computeCapability: `${d.computeCapability.major}.${d.computeCapability.minor}`,
    nvlink: { links: d.nvlink.links, active: d.nvlink.active, version: orNull(d.nvlink.version) },
  };
}

/** NVML's report; never throws (an unexpected NVML failure becomes a problem). */
export function nvmlReport(problems: string[]): NvmlReport {
  if (!system.available) {
    // the reason on one line for the report; the whole error (a missing library's places, one a line) among the problems
    problems.push(`nvml: ${message(system.unavailableError ?? system.unavailableReason)}`);
    return { available: false, reason: system.unavailableReason ?? 'unknown' };
  }
  try {
    const v = system.cudaDriverVersion;
    return {
      available: true,
      driverVersion: system.driverVersion,
      nvmlVersion: system.nvmlVersion,
      cudaDriverVersion: `${v.major}.${v.minor}`,
      devices: system.devices().map((d) => nvmlDevice(d.info())),
    };
  } catch (error) {
    problems.push(`nvml: ${message(error)}`);
    return { available: false, reason: message(error) };
  }
}

export function systemReport(): SystemReport {
  const problems: string[] = [];
  let version: string | undefined;
  const devices: DeviceSummary[] = [];
  // NVML needs neither the driver API nor a CUDA context: it is read whatever the driver API says
  const nvml = nvmlReport(problems);
  try {
    const v = driverVersion();
    version = `${v.major}.${v.minor}`;
  } catch (error) {
    problems.push(`driver: ${message(error)}`);
    return { devices, peerAccess: [], nvml, problems };
  }
  try {
    const count = deviceCount();
    if (count === 0) problems.push('devices: the driver reports no CUDA device');
    for (let i = 0; i < count; i++) {
      const d = Device.get(i);
      devices.push({
        ordinal: i,
        name: d.name,
        arch: d.arch,
        totalMemoryGiB: Number(d.totalMemory) / 2 ** 30,
        uuid: d.uuid,
        pciBusId: d.pciBusId,
      });
    }
  } catch (error) {
    problems.push(`devices: ${message(error)}`);
  }
  let peerAccess: boolean[][] = [];
  try {
    peerAccess = devices.map((d) => devices.map((peer) => Device.get(d.ordinal).canAccessPeer(peer.ordinal)));
  } catch (error) {
    problems.push(`peer access: ${message(error)}`);
  }
  return { driverVersion: version, devices, peerAccess, nvml, problems };
}
