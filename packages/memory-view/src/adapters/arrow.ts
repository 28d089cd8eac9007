/**
 * `@cuda-js/memory-view/adapters/arrow`: importing it lets
 * `StridedMemoryView.fromAny` and `fromArrow` view Apache Arrow vectors
 * (`apache-arrow`). It exports nothing.
 *
 * @module
 */
import { DLPackFlags } from '../protocols.js';
import { dtype, type DType } from '../dtype.js';
import { NotViewableError, OutOfBoundsError } from '../errors.js';
import { formatValue } from '../format-value.js';
import { measureView, type MeasuredView } from '../host-buffer.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import type { ArrowDataLike, ArrowTypeLike, ArrowVectorLike } from './host-arrays.js';
import { hostLayout, viewOfLayout, type HostLayout } from './host-layout.js';
import { registerHostAdapter } from './registry.js';

// Arrow's Type enum: the ids are part of the Arrow format and stable.
const TYPE_INT = 2;
const TYPE_FLOAT = 3;
const TYPE_BOOL = 6;
const TYPE_FIXED_SIZE_LIST = 16;
const TYPE_NAMES: Record<number, string> = {
  1: 'Null',
  4: 'Binary',
  5: 'Utf8',
  7: 'Decimal',
  8: 'Date',
  9: 'Time',
  10: 'Timestamp',
  11: 'Interval',
  12: 'List',
  13: 'Struct',
  14: 'Union',
  15: 'FixedSizeBinary',
  17: 'Map',
  18: 'Duration',
  19: 'LargeBinary',
  20: 'LargeUtf8',
  [-1]: 'Dictionary',
};

const BOOL = dtype('bool');

function numericDType(type: ArrowTypeLike): DType | undefined {
  const bitWidth: unknown = type.bitWidth;
  const precision: unknown = type.precision;
  if (type.typeId === TYPE_INT && (bitWidth === 8 || bitWidth === 16 || bitWidth === 32 || bitWidth === 64))
    return dtype(`${type.isSigned ? 'int' : 'uint'}${bitWidth}`);
  if (type.typeId === TYPE_FLOAT && (precision === 0 || precision === 1 || precision === 2))
    return [dtype('float16'), dtype('float32'), dtype('float64')][precision];
  return undefined;
}

function refuseNulls(chunk: ArrowDataLike): void {
  if (chunk.nullCount > 0)
    throw new NotViewableError(
      `this Arrow vector has ${chunk.nullCount} null(s); a memory view cannot represent them (fill them first)`,
    );
}

/** The values of a chunk, measured by the engine's own getters. */
function valuesOf(chunk: ArrowDataLike): MeasuredView {
  const values = measureView(chunk.values);
  if (values === undefined) throw new NotViewableError('this Arrow chunk has no values buffer');
  return values;
}

function count(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new NotViewableError(`this Arrow vector's ${what} is ${formatValue(value)}; expected a non-negative integer`);
  return value;
}

/** The element type, the columns per row (1 for a flat vector) and the chunks of values. */
function describe(vector: ArrowVectorLike): { t: DType | 'bool'; columns: number; chunks: ArrowDataLike[] } {
  const type = vector.type;
  if (type.typeId === TYPE_FIXED_SIZE_LIST) {
    const childType = type.children?.[0]?.type;
    const t = childType === undefined ? undefined : numericDType(childType);
    if (t === undefined || type.listSize === undefined)
      throw new NotViewableError('only fixed-size lists of integers or floats can be viewed (as 2-D)');
    const listSize = count(type.listSize, 'list size');
    const chunks = vector.data.map((chunk) => {
      refuseNulls(chunk);
      const child = chunk.children?.[0];
      if (child === undefined) throw new NotViewableError('this fixed-size-list chunk has no child data');
      refuseNulls(child);
      return { ...child, length: count(chunk.length, 'chunk length') * listSize } as ArrowDataLike;
    });
    return { t, columns: listSize, chunks };
  }
  if (type.typeId === TYPE_BOOL) {
    vector.data.forEach(refuseNulls);
    return { t: 'bool', columns: 1, chunks: [...vector.data] };
  }
  const t = numericDType(type);
  if (t === undefined) {
    throw new NotViewableError(
      `Arrow ${TYPE_NAMES[type.typeId] ?? `type ${type.typeId}`} vectors cannot be viewed; integers, floats, booleans and fixed-size lists of numbers can`,
    );
  }
  vector.data.forEach(refuseNulls);
  return { t, columns: 1, chunks: [...vector.data] };
}

/**
 * The chunks, each with its values measured and its length read once and
 * checked against them (in bits for booleans), and the total of their lengths,
 * which must be the vector's: nothing is allocated on a claim that the memory does not back.
 */
function measureChunks(
  chunks: readonly ArrowDataLike[],
  bitsPerElement: number,
  total: number,
): { values: MeasuredView; offset: number; length: number }[] {
  let sum = 0;
  const out = chunks.map((chunk) => {
    const values = valuesOf(chunk);
    const length = count(chunk.length, 'chunk length');
    const offset = bitsPerElement === 1 ? count(chunk.offset, 'chunk offset') : 0;
    if ((offset + length) * bitsPerElement > values.byteLength * 8) {
      throw new OutOfBoundsError(
        `this Arrow chunk claims ${length} elements but its values hold ${values.byteLength} bytes`,
      );
    }
    sum += length;
    return { values, offset, length };
  });
  if (sum !== total)
    throw new NotViewableError(`this Arrow vector says it has ${total} elements but its chunks hold ${sum}`);
  return out;
}

function unpackBools(chunks: readonly ArrowDataLike[], total: number): Uint8Array {
  const measured = measureChunks(chunks, 1, total);
  const out = new Uint8Array(total);
  let k = 0;
  for (const { values, offset, length } of measured) {
    const bits = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    // Bitmaps are not sliced per bit: element i of the chunk is bit (offset + i).
    for (let i = 0; i < length; i++, k++) {
      const bit = offset + i;
      out[k] = (bits[bit >> 3]! >> (bit & 7)) & 1;
    }
  }
  return out;
}

function concatenate(chunks: readonly ArrowDataLike[], t: DType, total: number): Uint8Array {
  const measured = measureChunks(chunks, t.itemsize * 8, total);
  const out = new Uint8Array(total * t.itemsize);
  let at = 0;
  for (const { values, length } of measured) {
    const bytes = length * t.itemsize;
    out.set(new Uint8Array(values.buffer, values.byteOffset, bytes), at);
    at += bytes;
  }
  return out;
}

const layouts = new WeakMap<object, HostLayout>();

/** A view of an Arrow vector (see `StridedMemoryView.fromArrow`), its layout (or its copy) made once per vector. */
function viewFromArrow(vector: ArrowVectorLike): StridedMemoryView {
  let layout = layouts.get(vector);
  if (layout === undefined) {
    const { t, columns, chunks } = describe(vector);
    const rows = count(vector.length, 'length');
    const shape = columns === 1 ? [rows] : [rows, columns];
    const strides = columns === 1 ? [1] : [columns, 1];
    if (t === 'bool') {
      const copy = unpackBools(chunks, rows);
      layout = hostLayout('Arrow vector', copy.buffer, 0, rows, 0, shape, strides, BOOL, DLPackFlags.IS_COPIED);
    } else if (chunks.length === 1) {
      // Zero-copy; Arrow data is immutable, so the view is read-only.
      const values = valuesOf(chunks[0]!);
      layout = hostLayout(
        'Arrow vector',
        values.buffer,
        values.byteOffset,
        Math.floor(values.byteLength / t.itemsize),
        0,
        shape,
        strides,
        t,
        DLPackFlags.READ_ONLY,
      );
    } else {
      // Several chunks are several allocations: one copy makes them one strided array.
      const copy = concatenate(chunks, t, rows * columns);
      layout = hostLayout('Arrow vector', copy.buffer, 0, rows * columns, 0, shape, strides, t, DLPackFlags.IS_COPIED);
    }
    layouts.set(vector, layout);
  }
  return viewOfLayout(layout, vector);
}

registerHostAdapter('arrow', viewFromArrow);
