import { driver, type CUcontext } from '@cuda-js/bindings';
import { checkBlockingWait, Event, type EventOptions, type StreamArgument, type StreamOptions } from '@cuda-js/streams';
import type { Buffer } from '../memory/buffer.js';
import { DeviceStream } from '../graph/device-stream.js';
import { deviceCount } from '../context/driver-init.js';
import {
  checkDeviceOrdinal,
  currentDeviceOrdinal,
  deviceAttribute,
  deviceHandle,
  ensureCurrentDevice,
  primaryContext,
  setCurrentDevice,
} from '../context/device-context.js';
import { brandDevice, DEVICE_OF_ORDINAL, toDeviceOrdinal } from '../context/device-identity.js';
import { devicesCanAccess } from '../context/peer-access.js';
import { checkCoreOptions, STREAM_OPTIONS } from '../core-options.js';
import { GraphBuilder } from '../graph/graph-builder.js';
import {
  DEVICE_ATTRIBUTES,
  FLAG_ATTRIBUTES,
  type DeviceAttributeName,
  type DeviceAttributeValues,
} from '../generated/device-attributes.js';
import type { ManagedBuffer } from '../memory/managed-buffer.js';
import { DeviceMemoryResource, ManagedMemoryResource } from '../memory/memory-resources.js';

const devices = new Map<number, Device>();

function formatUuid(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A CUDA device, by ordinal. One object per ordinal per process. Its primary
 * context is retained on first use and made current by `setCurrent()`.
 *
 * The facade on top of core's floors: the context floor below keeps the
 * handle, the primary context and the attributes per ordinal, and the
 * memory, launch and graph floors work by ordinal; a Device makes their
 * resources for itself.
 */
export class Device {
  /** The CUdevice handle (the driver's ordinal). */
  readonly handle: number;
  #attributes: DeviceAttributeValues | undefined;
  #memoryResource: DeviceMemoryResource | undefined;
  #managedMemoryResource: ManagedMemoryResource | undefined;

  private constructor(readonly ordinal: number) {
    this.handle = deviceHandle(ordinal);
    brandDevice(this);
  }

  /** How many CUDA devices there are (0 where the driver reports none). */
  static count(): number {
    return deviceCount();
  }

  /** The device of `ordinal` (default 0). */
  static get(ordinal = 0): Device {
    if (!Number.isInteger(ordinal) || ordinal < 0)
      throw new RangeError(`Device.get: ordinal must be a non-negative integer, got ${String(ordinal)}`);
    const known = devices.get(ordinal);
    if (known) return known;
    checkDeviceOrdinal(ordinal);
    const device = new Device(ordinal);
    devices.set(ordinal, device);
    return device;
  }

  /** Every device. */
  static all(): Device[] {
    return Array.from({ length: Device.count() }, (_, i) => Device.get(i));
  }

  /** The device of the context current on this thread, if any. */
  static current(): Device | undefined {
    const ordinal = currentDeviceOrdinal();
    return ordinal === undefined ? undefined : Device.get(ordinal);
  }

  /** @internal The Device of another ordinal (`Device.get`), for the floors below that hold this Device (a memory resource's) and answer with Devices. */
  [DEVICE_OF_ORDINAL](ordinal: number): Device {
    return Device.get(ordinal);
  }

  get name(): string {
    return driver.cuDeviceGetName(this.handle);
  }

  /** The device UUID as `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as nvidia-smi prints it. */
  get uuid(): string {
    return formatUuid(driver.cuDeviceGetUuid(this.handle));
  }

  get pciBusId(): string {
    return driver.cuDeviceGetPCIBusId(this.handle);
  }

  /** Total memory in bytes. */
  get totalMemory(): bigint {
    return driver.cuDeviceTotalMem(this.handle);
  }

  get computeCapability(): { major: number; minor: number } {
    return { major: this.attribute('computeCapabilityMajor'), minor: this.attribute('computeCapabilityMinor') };
  }

  /** The compile target of this device: `sm_90` for compute capability 9.0. */
  get arch(): string {
    const { major, minor } = this.computeCapability;
    return `sm_${major}${minor}`;
  }

  /** One device attribute, by name, as the driver reports it (a number). Cached: attributes do not change. */
  attribute(name: DeviceAttributeName): number {
    return deviceAttribute(this.ordinal, name);
  }

  /** Every device attribute as a typed property (flags as booleans), read on first access. */
  get attributes(): DeviceAttributeValues {
    if (!this.#attributes) {
      const view = {} as Record<string, unknown>;
      for (const name of Object.keys(DEVICE_ATTRIBUTES) as DeviceAttributeName[]) {
        Object.defineProperty(view, name, {
          enumerable: true,
          get: () => (FLAG_ATTRIBUTES.has(name) ? this.attribute(name) !== 0 : this.attribute(name)),
        });
      }
      this.#attributes = Object.freeze(view) as unknown as DeviceAttributeValues;
    }
    return this.#attributes;
  }

  /** The primary context (retained on first use, for the life of the process). */
  get context(): CUcontext {
    return primaryContext(this.ordinal);
  }

  /** Makes this device's primary context current on this thread. */
  setCurrent(): this {
    setCurrentDevice(this.ordinal);
    return this;
  }

  /**
   * Whether this device can address memory of `peer` (a Device or an ordinal;
   * cuDeviceCanAccessPeer): what peer access, `DeviceMemoryResource.peerAccessibleBy`,
   * needs. Always true for the device itself.
   */
  canAccessPeer(peer: Device | number): boolean {
    return devicesCanAccess(this.ordinal, toDeviceOrdinal(peer, 'Device.canAccessPeer'));
  }

  /** Makes this device current if no context of it is. */
  ensureCurrent(): void {
    ensureCurrentDevice(this.ordinal);
  }

  /** A new stream on this device: a Stream with `createGraphBuilder()` (see {@link DeviceStream}). */
  createStream(options?: StreamOptions): DeviceStream {
    this.ensureCurrent();
    return DeviceStream.create(options);
  }

  createEvent(options?: EventOptions): Event {
    this.ensureCurrent();
    return Event.create(options);
  }

  /**
   * A GraphBuilder that captures on a new stream of this device (cuda.core's
   * `Device.create_graph_builder()`): `beginBuilding()`, record work with the
   * builder as the stream, `endBuilding()`, `complete()`.
   */
  createGraphBuilder(): GraphBuilder {
    this.ensureCurrent();
    return GraphBuilder.create();
  }

  /** The device's stream-ordered memory pool resource. */
  get memoryResource(): DeviceMemoryResource {
    this.#memoryResource ??= new DeviceMemoryResource(this);
    return this.#memoryResource;
  }

  /** Allocates device memory from the default pool, ordered on `stream` (default: the legacy default stream). */
  allocate(size: number, options: { stream?: StreamArgument | undefined } = {}): Buffer {
    options = checkCoreOptions('Device.allocate', options, STREAM_OPTIONS);
    return this.memoryResource.allocate(size, options);
  }

  /** The device's managed (unified) memory resource. */
  get managedMemoryResource(): ManagedMemoryResource {
    this.#managedMemoryResource ??= new ManagedMemoryResource(this);
    return this.#managedMemoryResource;
  }

  /** Allocates managed memory for this device (cuMemAllocManaged): a {@link ManagedBuffer}, with advice and prefetch. */
  allocateManaged(size: number): ManagedBuffer {
    return this.managedMemoryResource.allocate(size);
  }

  /**
   * Blocks until all work on this device's context is done. Refused with
   * `HostFunctionDeadlockError` while a host function of this thread is
   * pending (it could not run): await `stream.synchronized()` then.
   */
  synchronize(): void {
    this.ensureCurrent();
    checkBlockingWait('context', 'Device.synchronize');
    driver.cuCtxSynchronize();
  }

  toString(): string {
    return `Device(${this.ordinal})`;
  }
}
