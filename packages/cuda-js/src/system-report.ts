import { Device, deviceCount, driverVersion } from '@cuda-js/core';

/** One CUDA device as `cuda-js info` shows it. */
export interface DeviceSummary {
  readonly ordinal: number;
  readonly name: string;
  readonly arch: string;
  readonly totalMemoryGiB: number;
  readonly uuid: string;
  readonly pciBusId: string;
}

/** The driver and its devices, or why they could not be read. */
export interface SystemReport {
  readonly driverVersion?: string;
  readonly devices: readonly DeviceSummary[];
  /** Why the driver or the devices could not be read (no driver library, no device, ...). */
  readonly problems: readonly string[];
}

function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}

export function systemReport(): SystemReport {
  const problems: string[] = [];
  let version: string | undefined;
  const devices: DeviceSummary[] = [];
  try {
    const v = driverVersion();
    version = `${v.major}.${v.minor}`;
  } catch (error) {
    problems.push(`driver: ${message(error)}`);
    return { devices, problems };
  }
  try {
    const count = deviceCount();
    if (count === 0) problems.push('devices: the driver reports no CUDA device');
    for (let i = 0; i < count; i++) {
      const d = Device.get(i);
      devices.push({ ordinal: i, name: d.name, arch: d.arch, totalMemoryGiB: Number(d.totalMemory) / 2 ** 30, uuid: d.uuid, pciBusId: d.pciBusId });
    }
  } catch (error) {
    problems.push(`devices: ${message(error)}`);
  }
  return { driverVersion: version, devices, problems };
}
