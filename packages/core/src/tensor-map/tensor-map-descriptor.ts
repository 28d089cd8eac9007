import { driver, type DriverTypes } from '@cuda-js/bindings';
import type { StridedMemoryView } from '@cuda-js/memory-view';
import type { Buffer } from '../memory/buffer.js';
import { ByValueArgument } from '../launch/by-value-argument.js';
import { Device } from '../device/device.js';
import { TensorMapError } from '../errors.js';
import {
  checkReplacement,
  checkTensorMapDevice,
  planTiledTensorMap,
  tensorMapView,
  type TensorMapTiledOptions,
  type TiledTensorMapLayout,
} from './tensor-map-layout.js';
import type {
  TensorMapDataType,
  TensorMapInterleave,
  TensorMapL2Promotion,
  TensorMapOOBFill,
  TensorMapSwizzle,
} from './tensor-map-options.js';

/** Bytes of a CUtensorMap: 16 opaque 64-bit words. */
const TENSOR_MAP_BYTES = 128;
const TENSOR_MAP_WORDS = TENSOR_MAP_BYTES / 8;

/**
 * A TMA (tensor memory accelerator) descriptor: the 128-byte `CUtensorMap`
 * that lets a kernel on compute capability 9.0 or newer copy tiles of a
 * global array to shared memory in one instruction (cuda.core's
 * `TensorMapDescriptor`). Pass it to `launch` for a
 * `const __grid_constant__ CUtensorMap` parameter: its bytes are copied into
 * the parameter. The descriptor holds the memory it addresses while it
 * lives; it orders no stream, so order the memory's writers before the
 * launch as for any argument.
 */
export class TensorMapDescriptor extends ByValueArgument {
  /** The device whose context was current when the map was made. */
  readonly device: Device;
  readonly #layout: TiledTensorMapLayout;
  readonly #bytes = new Uint8Array(TENSOR_MAP_BYTES);
  readonly #words = new BigUint64Array(this.#bytes.buffer);
  /** The memory the map addresses now, held while it does. */
  #target: StridedMemoryView | Buffer;
  #address: bigint;

  private constructor(layout: TiledTensorMapLayout, device: Device, map: DriverTypes.CUtensorMap, address: bigint) {
    super();
    this.#layout = layout;
    this.device = device;
    this.#target = layout.view;
    this.#address = address;
    this.#store(map);
  }

  /**
   * A tiled tensor map of `array` (a StridedMemoryView, a Buffer, or any
   * DLPack or CUDA array interface object) through `cuTensorMapEncodeTiled`,
   * in the current context. The array's innermost dimension must be
   * contiguous; extents, strides and the data type come from the array.
   * Everything the driver documents is checked first (TensorMapError): 1 to
   * 5 dimensions, a 16-byte aligned address (32 with 32-byte interleave),
   * strides that are multiples of 16 bytes (32) below 2^40, box extents 1 to
   * 256 whose inner extent is a multiple of 16 bytes and fits the swizzle
   * span, element strides 1 to 8.
   */
  static tiled(array: unknown, options: TensorMapTiledOptions): TensorMapDescriptor {
    const what = 'TensorMapDescriptor.tiled';
    const view = tensorMapView(array, what);
    const layout = planTiledTensorMap(view, options, what);
    const device = Device.current();
    if (device === undefined)
      throw new TensorMapError(`${what}: no current CUDA context; call device.setCurrent() first`);
    checkTensorMapDevice(view, device.ordinal, what);
    const e = layout.encode;
    const address = view.ptr!;
    const map = driver.cuTensorMapEncodeTiled(
      e.dataType,
      e.rank,
      address,
      e.globalDim,
      e.globalStrides,
      e.boxDim,
      e.elementStrides,
      e.interleave,
      e.swizzle,
      e.l2Promotion,
      e.oobFill,
    );
    return new TensorMapDescriptor(layout, device, map, address);
  }

  #store(map: DriverTypes.CUtensorMap): void {
    const opaque = map.opaque;
    if (opaque === undefined || opaque.length !== TENSOR_MAP_WORDS)
      throw new TensorMapError(
        `the driver returned a CUtensorMap of ${opaque?.length ?? 0} words, not ${TENSOR_MAP_WORDS}`,
      );
    for (let i = 0; i < TENSOR_MAP_WORDS; i++) this.#words[i] = BigInt(opaque[i]!);
  }

  /**
   * Points the map at other memory (`cuTensorMapReplaceAddress`); only the
   * address changes. A StridedMemoryView or array object must have the
   * dtype, extents and strides the map was made for; a Buffer must hold the
   * map's whole span. Either must keep the alignment and lie on the map's
   * device. The map then holds the new memory and lets go of the old (a graph
   * that captured the old address does not hold it: retain it there).
   */
  replaceAddress(array: unknown): void {
    const what = 'TensorMapDescriptor.replaceAddress';
    const target = checkReplacement(this.#layout, array, this.device.ordinal, what);
    const map = driver.cuTensorMapReplaceAddress({ opaque: Array.from(this.#words) }, target.address);
    this.#store(map);
    this.#target = target.holder;
    this.#address = target.address;
  }

  /** The global address the map points at. */
  get address(): bigint {
    return this.#address;
  }

  /** The memory the map addresses now: the view it was made from, or what {@link replaceAddress} last gave. */
  get target(): StridedMemoryView | Buffer {
    return this.#target;
  }

  /** The element type TMA moves. */
  get dataType(): TensorMapDataType {
    return this.#layout.dataType;
  }

  /** The array's extents, outermost first. */
  get shape(): readonly number[] {
    return this.#layout.shape;
  }

  /** The tile one copy moves, outermost first. */
  get box(): readonly number[] {
    return this.#layout.box;
  }

  /** The traversal step per dimension, outermost first. */
  get elementStrides(): readonly number[] {
    return this.#layout.elementStrides;
  }

  get interleave(): TensorMapInterleave {
    return this.#layout.interleave;
  }

  get swizzle(): TensorMapSwizzle {
    return this.#layout.swizzle;
  }

  get l2Promotion(): TensorMapL2Promotion {
    return this.#layout.l2Promotion;
  }

  get oobFill(): TensorMapOOBFill {
    return this.#layout.oobFill;
  }

  /** A copy of the 128 bytes of the CUtensorMap. */
  get bytes(): Uint8Array {
    return this.#bytes.slice();
  }

  override get byteLength(): number {
    return TENSOR_MAP_BYTES;
  }

  /** Whether the memory the map addresses was closed (its view, or the Buffer that exported it): a launch then refuses the map. */
  override get closed(): boolean {
    const target = this.#target;
    if (target.closed) return true;
    const exporter = 'exporter' in target ? (target.exporter as { closed?: unknown } | null | undefined) : undefined;
    return typeof exporter === 'object' && exporter !== null && exporter.closed === true;
  }

  override writeTo(target: Uint8Array, offset: number): void {
    target.set(this.#bytes, offset);
  }

  override toString(): string {
    const l = this.#layout;
    const swizzle = l.swizzle === 'none' ? '' : `, swizzle ${l.swizzle}`;
    return `TensorMapDescriptor(tiled ${l.dataType} [${l.shape.join(', ')}], box [${l.box.join(', ')}]${swizzle})`;
  }
}
