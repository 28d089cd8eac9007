import { cuda, errorCodeName, type CUcontext, type CUfunction, type CUkernel } from './cuda-bindings.js';
import { currentDevice } from './device-architecture.js';
import { ClosedResourceError, InvalidArgumentError, NoCurrentContextError } from './errors.js';
import {
  KERNEL_ATTRIBUTES,
  SETTABLE_KERNEL_ATTRIBUTES,
  type KernelAttributeName,
  type KernelAttributes,
} from './kernel-attributes.js';
import { KernelOccupancy } from './kernel-occupancy.js';
import type { ObjectCode } from './object-code.js';

/**
 * Where one kernel parameter lies in the parameter buffer: what a launcher
 * needs (`@cuda-js/core`'s `LaunchableKernel.parameters` takes these).
 */
export interface KernelParameter {
  /** Byte offset in the parameter buffer. */
  readonly offset: number;
  /** Size in bytes. */
  readonly size: number;
  /** Position in the kernel's signature, from 0 ({@link Kernel.parameters} always gives it; a launcher reads the list's order). */
  readonly index?: number;
}

function toNumber(value: bigint | number): number {
  return typeof value === 'bigint' ? Number(value) : value;
}

/**
 * A kernel of a loaded {@link ObjectCode} (a context-independent
 * `CUkernel`): its attributes, occupancy and parameter layout.
 *
 * For launchers (`@cuda-js/core`'s `launch` takes a Kernel): {@link handle}
 * is the `CUkernel`; {@link getFunction} gives the `CUfunction` for the
 * current context (for `cuLaunchKernel`); {@link parameters} gives each
 * parameter's offset and size (`cuKernelGetParamInfo`), and
 * {@link parameterBufferSize} the bytes that a packed argument buffer needs.
 * The kernel keeps its ObjectCode alive; closing the ObjectCode ends it.
 */
export class Kernel {
  /** The `CUkernel`. */
  readonly handle: CUkernel;
  /** The name it was asked for by (a name expression or a symbol). */
  readonly name: string;
  /** The code it comes from, when it came from an ObjectCode. */
  readonly objectCode: ObjectCode | undefined;
  private functions = new Map<CUcontext, CUfunction>();
  private parameterList: readonly Required<KernelParameter>[] | undefined;
  private occupancyView: KernelOccupancy | undefined;

  private constructor(handle: CUkernel, name: string, objectCode: ObjectCode | undefined) {
    this.handle = handle;
    this.name = name;
    this.objectCode = objectCode;
  }

  /** @internal Made by {@link ObjectCode.getKernel}. */
  static fromObjectCode(handle: CUkernel, name: string, objectCode: ObjectCode): Kernel {
    return new Kernel(handle, name, objectCode);
  }

  /**
   * A Kernel for a `CUkernel` obtained elsewhere (another library). The
   * caller keeps its library loaded while the Kernel is used.
   */
  static fromHandle(
    handle: CUkernel,
    name = `kernel@0x${typeof handle === 'bigint' ? handle.toString(16) : '?'}`,
  ): Kernel {
    if (typeof handle !== 'bigint' || handle === 0n)
      throw new InvalidArgumentError('handle', handle, 'a non-null CUkernel (bigint)');
    return new Kernel(handle, name, undefined);
  }

  /**
   * The `CUfunction` of this kernel in the current context
   * (`cuKernelGetFunction`), for `cuLaunchKernel` and the occupancy API.
   *
   * @throws {NoCurrentContextError} where no context is current
   */
  getFunction(): CUfunction {
    this.checkOpen();
    const context = cuda.driver.cuCtxGetCurrent();
    if (context === 0n) throw new NoCurrentContextError(`getting the CUfunction of kernel '${this.name}'`);
    let fn = this.functions.get(context);
    if (fn === undefined) {
      fn = cuda.driver.cuKernelGetFunction(this.handle);
      this.functions.set(context, fn);
    }
    return fn;
  }

  /**
   * One attribute on a device (a device ordinal; default: the current
   * context's device, else device 0).
   */
  getAttribute(name: KernelAttributeName, device?: number): number {
    this.checkOpen();
    if (!Object.hasOwn(KERNEL_ATTRIBUTES, name))
      throw new InvalidArgumentError('name', name, `one of ${Object.keys(KERNEL_ATTRIBUTES).join(', ')}`);
    return this.readAttribute(name, this.device(device));
  }

  /** Every attribute on a device, in one object. */
  attributes(device?: number): KernelAttributes {
    this.checkOpen();
    const dev = this.device(device);
    const out: Record<string, number> = {};
    for (const name of Object.keys(KERNEL_ATTRIBUTES) as KernelAttributeName[])
      out[name] = this.readAttribute(name, dev);
    return out as KernelAttributes;
  }

  private readAttribute(name: KernelAttributeName, cuDevice: number): number {
    const driver = cuda.driver;
    return driver.cuKernelGetAttribute(driver.CUfunction_attribute[KERNEL_ATTRIBUTES[name]], this.handle, cuDevice);
  }

  /**
   * Changes a settable attribute (`maxDynamicSharedSizeBytes`,
   * `preferredSharedMemoryCarveout`, the cluster ones) on a device.
   */
  setAttribute(name: KernelAttributeName, value: number, device?: number): void {
    this.checkOpen();
    if (!SETTABLE_KERNEL_ATTRIBUTES.includes(name))
      throw new InvalidArgumentError('name', name, `a settable attribute: ${SETTABLE_KERNEL_ATTRIBUTES.join(', ')}`);
    if (!Number.isInteger(value)) throw new InvalidArgumentError('value', value, 'an integer');
    const driver = cuda.driver;
    driver.cuKernelSetAttribute(
      driver.CUfunction_attribute[KERNEL_ATTRIBUTES[name]],
      value,
      this.handle,
      this.device(device),
    );
  }

  /** Occupancy queries, for the current context's device. */
  get occupancy(): KernelOccupancy {
    this.checkOpen();
    this.occupancyView ??= new KernelOccupancy(this);
    return this.occupancyView;
  }

  /**
   * Each parameter's offset and size, in signature order
   * (`cuKernelGetParamInfo`, CUDA 12.4 drivers and newer). Read once.
   */
  get parameters(): readonly Required<KernelParameter>[] {
    this.checkOpen();
    if (!this.parameterList) {
      const list: Required<KernelParameter>[] = [];
      for (let index = 0; ; index++) {
        let info: { paramOffset: bigint | number; paramSize: bigint | number };
        try {
          info = cuda.driver.cuKernelGetParamInfo(this.handle, index);
        } catch (error) {
          // The driver answers an index past the last parameter with CUDA_ERROR_INVALID_VALUE.
          if (errorCodeName(error) === 'CUDA_ERROR_INVALID_VALUE') break;
          throw error;
        }
        list.push(Object.freeze({ index, offset: toNumber(info.paramOffset), size: toNumber(info.paramSize) }));
      }
      this.parameterList = Object.freeze(list);
    }
    return this.parameterList;
  }

  /** How many parameters the kernel takes. */
  get parameterCount(): number {
    return this.parameters.length;
  }

  /** Bytes a buffer needs to hold every parameter at its offset. */
  get parameterBufferSize(): number {
    return this.parameters.reduce((end, p) => Math.max(end, p.offset + p.size), 0);
  }

  toString(): string {
    return `Kernel(${this.name})`;
  }

  /** @throws {ClosedResourceError} when its ObjectCode was closed */
  checkOpen(): void {
    if (this.objectCode?.isClosed)
      throw new ClosedResourceError(`kernel '${this.name}' (its ObjectCode '${this.objectCode.name}')`);
  }

  private device(device: number | undefined): number {
    if (device === undefined) return currentDevice();
    if (!Number.isInteger(device) || device < 0)
      throw new InvalidArgumentError('device', device, 'a device ordinal (0, 1, ...)');
    cuda.driver.cuInit(0);
    return cuda.driver.cuDeviceGet(device);
  }
}
