import type { DriverTypes } from '@cuda-js/bindings';
import { DLDeviceType, formatValue, StridedMemoryView, type DType } from '@cuda-js/memory-view';
import { isAnything, type OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';
import { Buffer } from '../memory/buffer.js';
import { TensorMapError } from '../errors.js';
import {
  lookUpName,
  TENSOR_MAP_DATA_TYPES,
  TENSOR_MAP_INTERLEAVES,
  TENSOR_MAP_L2_PROMOTIONS,
  TENSOR_MAP_OOB_FILLS,
  TENSOR_MAP_SWIZZLES,
  type TensorMapDataType,
  type TensorMapInterleave,
  type TensorMapL2Promotion,
  type TensorMapOOBFill,
  type TensorMapSwizzle,
} from './tensor-map-options.js';

/**
 * Options of {@link TensorMapDescriptor.tiled}. Per-dimension lists are in
 * the array's order (outermost first, as its `shape`); the descriptor hands
 * them to the driver innermost first.
 */
export interface TensorMapTiledOptions {
  /** The tile (box) that one TMA copy moves: one extent per dimension, each 1 to 256 elements. */
  readonly box: readonly number[];
  /** The traversal step per dimension, each 1 to 8 (default all 1); TMA then moves `ceil(box[i] / elementStrides[i])` elements along `i`. */
  readonly elementStrides?: readonly number[] | undefined;
  /** The element type TMA moves (default: the array's dtype); its size must be the array's element size. */
  readonly dataType?: TensorMapDataType | undefined;
  /** Default `'none'`. */
  readonly interleave?: TensorMapInterleave | undefined;
  /** Default `'none'`. */
  readonly swizzle?: TensorMapSwizzle | undefined;
  /** Default `'none'`. */
  readonly l2Promotion?: TensorMapL2Promotion | undefined;
  /** Default `'none'` (zeros). */
  readonly oobFill?: TensorMapOOBFill | undefined;
}

/** @internal A tiled tensor map, checked against every rule of cuTensorMapEncodeTiled that needs no driver. */
export interface TiledTensorMapLayout {
  readonly view: StridedMemoryView;
  readonly dtype: DType;
  readonly dataType: TensorMapDataType;
  readonly interleave: TensorMapInterleave;
  readonly swizzle: TensorMapSwizzle;
  readonly l2Promotion: TensorMapL2Promotion;
  readonly oobFill: TensorMapOOBFill;
  /** The array's extents and the box, outermost first (as given). */
  readonly shape: readonly number[];
  readonly box: readonly number[];
  readonly elementStrides: readonly number[];
  /** The byte alignment that the global address needs (16; 32 with 32-byte interleave). */
  readonly alignment: number;
  /** Bytes from the first element to one past the last that the map can address. */
  readonly spanBytes: bigint;
  /** cuTensorMapEncodeTiled's arguments, innermost dimension first. */
  readonly encode: {
    readonly dataType: DriverTypes.CUtensorMapDataType;
    readonly rank: number;
    readonly globalDim: readonly number[];
    /** Byte strides of dimensions 1 to rank - 1. */
    readonly globalStrides: readonly number[];
    readonly boxDim: readonly number[];
    readonly elementStrides: readonly number[];
    readonly interleave: DriverTypes.CUtensorMapInterleave;
    readonly swizzle: DriverTypes.CUtensorMapSwizzle;
    readonly l2Promotion: DriverTypes.CUtensorMapL2promotion;
    readonly oobFill: DriverTypes.CUtensorMapFloatOOBfill;
  };
}

const MAX_RANK = 5;
const MAX_GLOBAL_DIM = 2 ** 32;
const MAX_GLOBAL_STRIDE = 2 ** 40;
const MAX_BOX = 256;
const MAX_ELEMENT_STRIDE = 8;

/** The data type of each memory-view dtype that TMA moves as it is. */
const DATA_TYPE_OF_DTYPE: ReadonlyMap<string, TensorMapDataType> = new Map(
  (['uint8', 'uint16', 'uint32', 'int32', 'uint64', 'int64', 'float16', 'float32', 'float64', 'bfloat16'] as const).map(
    (name) => [name, name],
  ),
);

/** `array` as a view: a StridedMemoryView as it is, anything else viewed with no stream ordering (only its layout is read here). */
export function tensorMapView(array: unknown, what: string): StridedMemoryView {
  if (StridedMemoryView.isView(array)) return array;
  try {
    return StridedMemoryView.fromAny(array, { stream: -1 });
  } catch (error) {
    throw new TensorMapError(`${what}: not an array that cuda-js can view (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** The view's device address, if a kernel can read the memory and it has `alignment`. */
function checkedAddress(view: StridedMemoryView, alignment: number, what: string): bigint {
  if (view.closed) throw new TensorMapError(`${what}: the view is closed`);
  const ptr = view.ptr;
  if (ptr === undefined || !view.isDeviceAccessible)
    throw new TensorMapError(
      `${what}: the array lives in host memory the GPU cannot address; copy it to a device Buffer first`,
    );
  return checkAlignment(ptr, alignment, what);
}

function checkAlignment(ptr: bigint, alignment: number, what: string): bigint {
  if (ptr <= 0n) throw new TensorMapError(`${what}: the array's address ${formatValue(ptr)} is not a device address`);
  if (ptr % BigInt(alignment) !== 0n) {
    throw new TensorMapError(
      `${what}: the global address 0x${ptr.toString(16)} must be ${alignment}-byte aligned${alignment === 32 ? ' (32-byte interleave)' : ''}`,
    );
  }
  return ptr;
}

function integerList(value: unknown, rank: number, min: number, max: number, option: string): number[] {
  if (!Array.isArray(value))
    throw new TensorMapError(
      `${option} must be an array of ${rank} integers (one per dimension, outermost first); got ${formatValue(value)}`,
    );
  if (value.length !== rank)
    throw new TensorMapError(`${option} has ${value.length} entries, but the array has ${rank} dimension(s)`);
  return value.map((v: unknown, d) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new TensorMapError(`${option}[${d}] must be an integer from ${min} to ${max}; got ${formatValue(v)}`);
    return v;
  });
}

/**
 * The extents (innermost first) and byte strides (of dimensions 1 and up, in
 * the driver's order) of a view: the innermost dimension contiguous, every
 * other stride positive, a multiple of `strideMultiple` bytes and below 2^40.
 */
function globalLayout(
  view: StridedMemoryView,
  itemsize: number,
  strideMultiple: number,
  what: string,
): { globalDim: number[]; globalStrides: number[] } {
  const { shape, strides } = view;
  const rank = shape.length;
  const globalDim: number[] = [];
  const globalStrides: number[] = [];
  for (let d = rank - 1; d >= 0; d--) {
    const extent = shape[d]!;
    if (extent < 1 || extent > MAX_GLOBAL_DIM)
      throw new TensorMapError(`${what}: extent ${extent} of dimension ${d} must be from 1 to 2^32`);
    globalDim.push(extent);
    const stride = strides[d]!;
    if (d === rank - 1) {
      if (stride !== 1 && extent !== 1)
        throw new TensorMapError(
          `${what}: the innermost dimension must be contiguous (stride 1 element); its stride is ${stride}`,
        );
      continue;
    }
    const bytes = stride * itemsize;
    if (!(bytes > 0) || bytes % strideMultiple !== 0 || bytes >= MAX_GLOBAL_STRIDE) {
      throw new TensorMapError(
        `${what}: the stride of dimension ${d} is ${bytes} bytes; it must be positive, a multiple of ${strideMultiple} and below 2^40`,
      );
    }
    globalStrides.push(bytes);
  }
  return { globalDim, globalStrides };
}

/** Bytes from the first element to one past the last. */
function span(globalDim: readonly number[], globalStrides: readonly number[], itemsize: number): bigint {
  let bytes = BigInt(globalDim[0]!) * BigInt(itemsize);
  for (let i = 1; i < globalDim.length; i++) bytes += BigInt(globalDim[i]! - 1) * BigInt(globalStrides[i - 1]!);
  return bytes;
}

/**
 * Checks a view and tiled options against every rule of
 * cuTensorMapEncodeTiled that needs no driver (rank, alignment, extents,
 * strides, box, element strides, interleave, swizzle and fill) and lays out
 * the driver's arguments. Throws TensorMapError naming the first rule broken.
 */
// Each value is looked up or checked below, with its own TensorMapError.
const TILED_OPTIONS = {
  box: isAnything,
  elementStrides: isAnything,
  dataType: isAnything,
  interleave: isAnything,
  swizzle: isAnything,
  l2Promotion: isAnything,
  oobFill: isAnything,
} satisfies OptionTableOf<TensorMapTiledOptions>;

export function planTiledTensorMap(
  view: StridedMemoryView,
  options: TensorMapTiledOptions,
  what: string,
): TiledTensorMapLayout {
  if (options === null || typeof options !== 'object')
    throw new TensorMapError(`${what}: options { box, ... } are required`);
  options = checkCoreOptions(what, options, TILED_OPTIONS) as TensorMapTiledOptions;
  const interleave = lookUpName(TENSOR_MAP_INTERLEAVES, options.interleave ?? 'none', `${what}: interleave`);
  const swizzle = lookUpName(TENSOR_MAP_SWIZZLES, options.swizzle ?? 'none', `${what}: swizzle`);
  const l2Promotion = lookUpName(TENSOR_MAP_L2_PROMOTIONS, options.l2Promotion ?? 'none', `${what}: l2Promotion`);
  const oobFill = lookUpName(TENSOR_MAP_OOB_FILLS, options.oobFill ?? 'none', `${what}: oobFill`);
  const interleaved32 = interleave.name === '32B';
  const alignment = interleaved32 ? 32 : 16;
  checkedAddress(view, alignment, what);

  const rank = view.shape.length;
  if (rank < 1 || rank > MAX_RANK)
    throw new TensorMapError(`${what}: a tensor map has 1 to ${MAX_RANK} dimensions; the array has ${rank}`);
  const dtype = view.dtype;
  const fromView = DATA_TYPE_OF_DTYPE.get(dtype.name);
  const dataType =
    options.dataType === undefined
      ? undefined
      : lookUpName(TENSOR_MAP_DATA_TYPES, options.dataType, `${what}: dataType`);
  if (dataType === undefined && fromView === undefined) {
    throw new TensorMapError(
      `${what}: TMA has no data type for ${dtype.name} arrays (it moves ${[...DATA_TYPE_OF_DTYPE.keys()].join(', ')}); view the memory as one of those, or give dataType`,
    );
  }
  const type = dataType ?? lookUpName(TENSOR_MAP_DATA_TYPES, fromView, `${what}: dataType`);
  const itemsize = type.entry.itemsize;
  if (itemsize !== view.itemsize)
    throw new TensorMapError(
      `${what}: dataType '${type.name}' is ${itemsize} bytes per element, the array's ${dtype.name} is ${view.itemsize}`,
    );

  const { globalDim, globalStrides } = globalLayout(view, itemsize, alignment, what);
  const box = integerList(options.box, rank, 1, MAX_BOX, `${what}: box`);
  const elementStrides =
    options.elementStrides === undefined
      ? new Array<number>(rank).fill(1)
      : integerList(options.elementStrides, rank, 1, MAX_ELEMENT_STRIDE, `${what}: elementStrides`);

  if (interleave.name !== 'none' && rank < 3)
    throw new TensorMapError(`${what}: an interleaved tensor map has at least 3 dimensions; the array has ${rank}`);
  if (interleaved32 && swizzle.name !== '32B')
    throw new TensorMapError(`${what}: 32-byte interleave needs swizzle '32B'; got '${swizzle.name}'`);
  if (interleave.name === 'none') {
    const innerBytes = box[rank - 1]! * itemsize;
    if (innerBytes % 16 !== 0)
      throw new TensorMapError(
        `${what}: the box's inner dimension is ${innerBytes} bytes (box[${rank - 1}] × ${itemsize}); it must be a multiple of 16`,
      );
    if (innerBytes > swizzle.entry.span)
      throw new TensorMapError(
        `${what}: swizzle '${swizzle.name}' takes an inner box dimension of at most ${swizzle.entry.span} bytes; the box's is ${innerBytes}`,
      );
  }
  if (oobFill.name !== 'none' && !type.entry.float)
    throw new TensorMapError(`${what}: oobFill '${oobFill.name}' needs a floating-point data type; got '${type.name}'`);

  return {
    view,
    dtype,
    dataType: type.name,
    interleave: interleave.name,
    swizzle: swizzle.name,
    l2Promotion: l2Promotion.name,
    oobFill: oobFill.name,
    shape: view.shape,
    box: Object.freeze(box),
    elementStrides: Object.freeze(elementStrides),
    alignment,
    spanBytes: span(globalDim, globalStrides, itemsize),
    encode: {
      dataType: type.entry.value,
      rank,
      globalDim,
      globalStrides,
      boxDim: [...box].reverse(),
      elementStrides: [...elementStrides].reverse(),
      interleave: interleave.entry,
      swizzle: swizzle.entry.value,
      l2Promotion: l2Promotion.entry,
      oobFill: oobFill.entry,
    },
  };
}

/** @internal Memory that a tensor map may be re-addressed to: its address, and the object to hold while the map points there. */
export interface TensorMapTarget {
  readonly address: bigint;
  readonly holder: StridedMemoryView | Buffer;
}

/** Refuses memory of another CUDA device than `deviceOrdinal` (pinned and managed memory serve every device). */
export function checkTensorMapDevice(view: StridedMemoryView, deviceOrdinal: number, what: string): void {
  const device = view.device;
  if (device.type === DLDeviceType.CUDA && device.id !== deviceOrdinal) {
    throw new TensorMapError(
      `${what}: the array lives on CUDA device ${device.id}, but the tensor map is for device ${deviceOrdinal}`,
    );
  }
}

/**
 * Checks memory for cuTensorMapReplaceAddress: only the address may change.
 * A Buffer (bytes) must hold the map's whole span; any other array must have
 * the layout the map was made for (dtype, extents, strides). Both keep the
 * alignment and the device.
 */
export function checkReplacement(
  layout: TiledTensorMapLayout,
  array: unknown,
  deviceOrdinal: number,
  what: string,
): TensorMapTarget {
  if (array instanceof Buffer) {
    if (array.closed) throw new TensorMapError(`${what}: the Buffer is closed`);
    if (!array.isDeviceAccessible) throw new TensorMapError(`${what}: the Buffer is not accessible from the device`);
    if (BigInt(array.size) < layout.spanBytes)
      throw new TensorMapError(
        `${what}: the Buffer holds ${array.size} bytes; the tensor map spans ${layout.spanBytes}`,
      );
    const device = array.device;
    if (device !== undefined && !array.isHostAccessible && device.ordinal !== deviceOrdinal) {
      throw new TensorMapError(
        `${what}: the Buffer lives on CUDA device ${device.ordinal}, but the tensor map is for device ${deviceOrdinal}`,
      );
    }
    return { address: checkAlignment(array.ptr, layout.alignment, what), holder: array };
  }
  const view = tensorMapView(array, what);
  const address = checkedAddress(view, layout.alignment, what);
  if (view.dtype !== layout.dtype)
    throw new TensorMapError(
      `${what}: the array holds ${view.dtype.name}; the tensor map was made for ${layout.dtype.name}`,
    );
  const old = layout.encode;
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  let fits = view.shape.length === layout.shape.length;
  if (fits) {
    const next = globalLayout(view, TENSOR_MAP_DATA_TYPES[layout.dataType].itemsize, layout.alignment, what);
    fits = same(next.globalDim, old.globalDim) && same(next.globalStrides, old.globalStrides);
  }
  if (!fits) {
    throw new TensorMapError(
      `${what}: only the address can change; the array has shape [${view.shape.join(', ')}] and strides [${view.strides.join(', ')}], the tensor map was made for shape [${layout.shape.join(', ')}] and strides [${layout.view.strides.join(', ')}]`,
    );
  }
  checkTensorMapDevice(view, deviceOrdinal, what);
  return { address, holder: view };
}
