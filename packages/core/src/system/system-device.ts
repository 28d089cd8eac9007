import { FunctionNotFoundError, nvml, NvmlError, type nvmlDevice_t } from '@cuda-js/bindings';
import { DeviceNotFoundError } from '../errors.js';
import { ensureNvml, reported } from './nvml-session.js';

/** Device memory in bytes. */
export interface SystemDeviceMemory {
  readonly total: bigint;
  readonly free: bigint;
  /** Allocated memory (NVML's `used`; with NVML's v1 query it includes `reserved`). */
  readonly used: bigint;
  /** What the driver and firmware set aside; undefined where NVML has only its v1 query. */
  readonly reserved: bigint | undefined;
}

/** Percent of NVML's last sample period (1/6 s to 1 s) that kernels ran, and that device memory was read or written. */
export interface SystemDeviceUtilization {
  readonly gpu: number;
  readonly memory: number;
}

/** Clock rates in MHz; undefined where the device does not report one. */
export interface SystemClockSet {
  readonly graphics: number | undefined;
  readonly sm: number | undefined;
  readonly memory: number | undefined;
  readonly video: number | undefined;
}

/** The clocks now, and the most each may reach. */
export interface SystemDeviceClocks extends SystemClockSet {
  readonly max: SystemClockSet;
}

/** Power in watts; undefined where the device does not report it (no power management). */
export interface SystemDevicePower {
  /** What the device and its memory draw now (averaged over a second on Ampere and newer, as NVML reads it). */
  readonly usage: number | undefined;
  /** The limit that the driver enforces, all limiters taken into account. */
  readonly limit: number | undefined;
}

/** Where the device sits on PCI. */
export interface SystemDevicePci {
  /** `domain:bus:device.function` with an 8-digit domain, as nvidia-smi prints it (`00000000:1D:00.0`). */
  readonly busId: string;
  /** The same with a 4-digit domain (`0000:1D:00.0`). */
  readonly busIdLegacy: string;
  readonly domain: number;
  readonly bus: number;
  readonly device: number;
  /** The 16-bit device id and the 16-bit vendor id, as one number (`0x233510de`). */
  readonly pciDeviceId: number;
  readonly pciSubSystemId: number;
}

/** One NvLink link. */
export interface SystemNvLinkLink {
  readonly link: number;
  readonly active: boolean;
  /** `4.0`, `5.0`, ...: `versionCode` read as NVML's `nvmlNvlinkVersion_t`; undefined where not reported or not known. */
  readonly version: string | undefined;
  /** What `nvmlDeviceGetNvLinkVersion` returned. */
  readonly versionCode: number | undefined;
}

/** The device's NvLink links (those that NVML reports of links 0 to `NVML_NVLINK_MAX_LINKS - 1`). */
export interface SystemDeviceNvLink {
  /** Whether the device has NvLink that NVML reports on. */
  readonly supported: boolean;
  /** How many links it has. */
  readonly links: number;
  /** How many of them are active. */
  readonly active: number;
  /** The version of its first active link (else of its first link). */
  readonly version: string | undefined;
  readonly perLink: readonly SystemNvLinkLink[];
}

/** Everything that {@link SystemDevice} reads, at one moment, as a plain object. */
export interface SystemDeviceInfo {
  readonly index: number;
  readonly name: string;
  readonly uuid: string;
  readonly memory: SystemDeviceMemory;
  readonly utilization: SystemDeviceUtilization | undefined;
  readonly clocks: SystemDeviceClocks;
  /** GPU die temperature in °C. */
  readonly temperature: number | undefined;
  readonly power: SystemDevicePower;
  readonly pci: SystemDevicePci;
  readonly computeCapability: { readonly major: number; readonly minor: number };
  readonly nvlink: SystemDeviceNvLink;
}

const devices = new Map<number, SystemDevice>();

/** `NVML_NVLINK_VERSION_4_0` → `4.0`. */
function nvlinkVersionText(code: number | undefined): string | undefined {
  if (code === undefined) return undefined;
  const name = nvml.nvmlNvlinkVersion_t[code];
  const m = name ? /^NVML_NVLINK_VERSION_(\d+)_(\d+)$/.exec(name) : null;
  return m ? `${m[1]}.${m[2]}` : undefined;
}

function mhz(h: nvmlDevice_t, read: typeof nvml.nvmlDeviceGetClockInfo): SystemClockSet {
  const t = nvml.nvmlClockType_t;
  return {
    graphics: reported(() => read(h, t.NVML_CLOCK_GRAPHICS)),
    sm: reported(() => read(h, t.NVML_CLOCK_SM)),
    memory: reported(() => read(h, t.NVML_CLOCK_MEM)),
    video: reported(() => read(h, t.NVML_CLOCK_VIDEO)),
  };
}

/**
 * A GPU as NVML sees it (by NVML's index, which is nvidia-smi's order: by PCI
 * bus, not CUDA's fastest-first). Each property asks NVML when it is read; a
 * figure that the device does not report (`NVML_ERROR_NOT_SUPPORTED`,
 * `NVML_ERROR_NO_PERMISSION`) is `undefined`, and other failures throw
 * `NvmlError`. Needs no CUDA context and does not initialize the driver API.
 */
export class SystemDevice {
  readonly #handle: nvmlDevice_t;

  private constructor(
    /** NVML's index of the device. */
    readonly index: number,
  ) {
    this.#handle = nvml.nvmlDeviceGetHandleByIndex_v2(index);
  }

  /** How many devices NVML reports. */
  static count(): number {
    ensureNvml();
    return nvml.nvmlDeviceGetCount_v2();
  }

  /**
   * The device of NVML index `index` (one object per index).
   * @throws {RangeError} for an index that is not a non-negative integer
   * @throws {SystemUnavailableError} where NVML is unavailable
   * @throws {DeviceNotFoundError} for an index past the last device
   */
  static get(index: number): SystemDevice {
    if (!Number.isInteger(index) || index < 0)
      throw new RangeError(`system.device: index must be a non-negative integer, got ${String(index)}`);
    const known = devices.get(index);
    if (known) return known;
    const count = SystemDevice.count();
    if (index >= count) throw new DeviceNotFoundError(`no NVML device ${index}: NVML reports ${count} device(s)`);
    const device = new SystemDevice(index);
    devices.set(index, device);
    return device;
  }

  get name(): string {
    return nvml.nvmlDeviceGetName(this.#handle);
  }

  /** `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as nvidia-smi prints it (and as core's `Device.uuid` reads it from the driver). */
  get uuid(): string {
    return nvml.nvmlDeviceGetUUID(this.#handle);
  }

  /** Total, free, used and reserved memory (NVML's v2 query; its v1 where the library is older). */
  get memory(): SystemDeviceMemory {
    try {
      const m = nvml.nvmlDeviceGetMemoryInfo_v2(this.#handle);
      return {
        total: BigInt(m.total ?? 0),
        free: BigInt(m.free ?? 0),
        used: BigInt(m.used ?? 0),
        reserved: BigInt(m.reserved ?? 0),
      };
    } catch (error) {
      const older =
        error instanceof FunctionNotFoundError ||
        (error instanceof NvmlError &&
          [
            'NVML_ERROR_FUNCTION_NOT_FOUND',
            'NVML_ERROR_ARGUMENT_VERSION_MISMATCH',
            'NVML_ERROR_NOT_SUPPORTED',
          ].includes(error.codeName));
      if (!older) throw error;
    }
    const m = nvml.nvmlDeviceGetMemoryInfo(this.#handle);
    return { total: BigInt(m.total ?? 0), free: BigInt(m.free ?? 0), used: BigInt(m.used ?? 0), reserved: undefined };
  }

  get utilization(): SystemDeviceUtilization | undefined {
    const u = reported(() => nvml.nvmlDeviceGetUtilizationRates(this.#handle));
    return u && { gpu: u.gpu ?? 0, memory: u.memory ?? 0 };
  }

  /** Graphics, SM, memory and video clocks now, and their maxima (MHz). */
  get clocks(): SystemDeviceClocks {
    return {
      ...mhz(this.#handle, nvml.nvmlDeviceGetClockInfo),
      max: mhz(this.#handle, nvml.nvmlDeviceGetMaxClockInfo),
    };
  }

  /** GPU die temperature in °C. */
  get temperature(): number | undefined {
    return reported(() =>
      nvml.nvmlDeviceGetTemperature(this.#handle, nvml.nvmlTemperatureSensors_t.NVML_TEMPERATURE_GPU),
    );
  }

  /** Power draw and enforced limit in watts (NVML reads milliwatts). */
  get power(): SystemDevicePower {
    const usage = reported(() => nvml.nvmlDeviceGetPowerUsage(this.#handle));
    const limit = reported(() => nvml.nvmlDeviceGetEnforcedPowerLimit(this.#handle));
    return {
      usage: usage === undefined ? undefined : usage / 1000,
      limit: limit === undefined ? undefined : limit / 1000,
    };
  }

  get pci(): SystemDevicePci {
    const p = nvml.nvmlDeviceGetPciInfo_v3(this.#handle);
    return {
      busId: p.busId ?? '',
      busIdLegacy: p.busIdLegacy ?? '',
      domain: p.domain ?? 0,
      bus: p.bus ?? 0,
      device: p.device ?? 0,
      pciDeviceId: p.pciDeviceId ?? 0,
      pciSubSystemId: p.pciSubSystemId ?? 0,
    };
  }

  /** The CUDA compute capability. */
  get computeCapability(): { readonly major: number; readonly minor: number } {
    return nvml.nvmlDeviceGetCudaComputeCapability(this.#handle);
  }

  /** Which NvLink links the device has, which are active, and their version. */
  get nvlink(): SystemDeviceNvLink {
    const perLink: SystemNvLinkLink[] = [];
    for (let link = 0; link < nvml.NVML_NVLINK_MAX_LINKS; link++) {
      let state: number;
      try {
        state = nvml.nvmlDeviceGetNvLinkState(this.#handle, link);
      } catch (error) {
        // no NvLink, or not this link: NVML says NOT_SUPPORTED or INVALID_ARGUMENT
        if (
          error instanceof NvmlError &&
          ['NVML_ERROR_NOT_SUPPORTED', 'NVML_ERROR_INVALID_ARGUMENT', 'NVML_ERROR_NO_PERMISSION'].includes(
            error.codeName,
          )
        )
          continue;
        throw error;
      }
      let versionCode: number | undefined;
      try {
        versionCode = nvml.nvmlDeviceGetNvLinkVersion(this.#handle, link);
      } catch (error) {
        if (!(error instanceof NvmlError)) throw error;
      }
      perLink.push({
        link,
        active: state === nvml.nvmlEnableState_t.NVML_FEATURE_ENABLED,
        version: nvlinkVersionText(versionCode),
        versionCode,
      });
    }
    const active = perLink.filter((l) => l.active);
    return {
      supported: perLink.length > 0,
      links: perLink.length,
      active: active.length,
      version: (active[0] ?? perLink[0])?.version,
      perLink,
    };
  }

  /** Every figure at once, as a plain object. */
  info(): SystemDeviceInfo {
    return {
      index: this.index,
      name: this.name,
      uuid: this.uuid,
      memory: this.memory,
      utilization: this.utilization,
      clocks: this.clocks,
      temperature: this.temperature,
      power: this.power,
      pci: this.pci,
      computeCapability: this.computeCapability,
      nvlink: this.nvlink,
    };
  }
}
