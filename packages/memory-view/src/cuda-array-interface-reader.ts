import type { CudaArrayInterface } from './protocols.js';
import { dtypeFromTypestr, type DType } from './dtype.js';
import { InvalidLayoutError, OutOfBoundsError, ProtocolError } from './errors.js';
import { formatValue } from './format-value.js';
import {
  byteExtent,
  checkAddress,
  compactStrides,
  isCContiguous,
  isFContiguous,
  readShape,
  readStrides,
} from './layout.js';

/**
 * What one CUDA array interface answer says, every field validated as
 * `StridedMemoryView.fromCudaArrayInterface` validates it (version 3 or
 * later, no mask, a known typestr, extents and byte strides that are whole
 * elements, an address whose elements all lie below 2^64, a stream that is
 * not 0) and copied: a later change to the answer does not change it.
 */
export interface CudaArrayInterfaceLayout {
  /** The address of element 0. */
  readonly ptr: bigint;
  /** The answer's `data[1]`: the producer exports the memory read-only. */
  readonly readonly: boolean;
  readonly dtype: DType;
  /** The extents, frozen. */
  readonly shape: readonly number[];
  /** The strides in elements, frozen (the compact row-major ones where the answer gives none). */
  readonly strides: readonly number[];
  readonly isCContiguous: boolean;
  readonly isFContiguous: boolean;
  /** The stream the producer's work is ordered on (the answer's `stream`; 1 and 2 are the default streams), if it names one. */
  readonly producerStream: bigint | undefined;
}

const ADDRESS_LIMIT = 1n << 64n;

/** A validated answer, with what a cheap second reading of an answer of the same form compares against. */
class InterfaceLayout implements CudaArrayInterfaceLayout {
  constructor(
    readonly ptr: bigint,
    readonly readonly: boolean,
    readonly dtype: DType,
    readonly shape: readonly number[],
    readonly strides: readonly number[],
    readonly isCContiguous: boolean,
    readonly isFContiguous: boolean,
    readonly producerStream: bigint | undefined,
    /** The typestr as given. */
    readonly typestr: string,
    /** The extents again, in an array that is not frozen: elements of frozen arrays are slow to read, and these are compared on each reading. */
    readonly extents: readonly number[],
    /** The strides in bytes as given (not frozen either), or undefined for none (null or absent). */
    readonly byteStrides: readonly number[] | undefined,
    /** The byte range [first, end) the elements span from element 0; end 0 for no element. */
    readonly first: bigint,
    readonly end: bigint,
  ) {}

  /** This layout at another address, with another read-only flag or stream (the rest is shared: it cannot change). */
  moved(ptr: bigint, readOnly: boolean, producerStream: bigint | undefined): InterfaceLayout {
    return new InterfaceLayout(
      ptr,
      readOnly,
      this.dtype,
      this.shape,
      this.strides,
      this.isCContiguous,
      this.isFContiguous,
      producerStream,
      this.typestr,
      this.extents,
      this.byteStrides,
      this.first,
      this.end,
    );
  }
}

function readLayout(cai: CudaArrayInterface): InterfaceLayout {
  if (cai === null || typeof cai !== 'object')
    throw new ProtocolError(`Symbol.for('cuda.array_interface') returned ${formatValue(cai)}; expected an object`);
  // Every field is read once and copied as validated primitives.
  const version: unknown = cai.version;
  if (typeof version !== 'number' || !(version >= 3)) {
    throw new ProtocolError(
      `CUDA array interface version ${formatValue(version)} is not supported; version 3 or later is required`,
    );
  }
  const mask: unknown = cai.mask;
  if (mask !== undefined && mask !== null)
    throw new ProtocolError('the CUDA array interface has a mask; masked arrays are not supported');
  const typestr: unknown = cai.typestr;
  const t = dtypeFromTypestr(typestr as string);
  const shape = readShape(cai.shape, 'CUDA array interface');
  const data: unknown = cai.data;
  let isArray = false;
  try {
    isArray = Array.isArray(data);
  } catch {
    // a revoked proxy
  }
  if (!isArray || (data as unknown[]).length !== 2)
    throw new ProtocolError('the CUDA array interface data must be [address, readOnly]');
  const address: unknown = (data as unknown[])[0];
  const readOnly: unknown = (data as unknown[])[1];
  const ptr = addressOf(address);
  if (ptr === undefined)
    throw new ProtocolError(
      `the CUDA array interface address is ${formatValue(address)}; expected a bigint (or a safe integer)`,
    );
  const givenStrides: unknown = cai.strides;
  let strides: readonly number[];
  let byteStrides: readonly number[] | undefined;
  if (givenStrides === null || givenStrides === undefined) {
    strides = Object.freeze(compactStrides(shape));
  } else {
    byteStrides = readStrides(givenStrides, shape, 'CUDA array interface');
    const itemsize = t.itemsize;
    strides = Object.freeze(
      byteStrides.map((b, i) => {
        if (b % itemsize !== 0) {
          throw new InvalidLayoutError(
            `CUDA array interface: stride ${b} bytes of dimension ${i} is not a whole number of ${t.name} elements (${itemsize} bytes)`,
          );
        }
        return b / itemsize;
      }),
    );
  }
  if (ptr < 0n || ptr >= ADDRESS_LIMIT)
    throw new OutOfBoundsError(`the CUDA array interface address ${formatValue(ptr)} is outside [0, 2^64)`);
  checkAddress(ptr, shape, strides, t.itemsize, 'CUDA array interface');
  const [first, end] = byteExtent(shape, strides, t.itemsize, 'CUDA array interface');
  const producerStream = readProducerStream(cai.stream);
  return new InterfaceLayout(
    ptr,
    Boolean(readOnly),
    t,
    shape,
    strides,
    isCContiguous(shape, strides),
    isFContiguous(shape, strides),
    producerStream,
    typestr as string,
    [...shape],
    byteStrides === undefined ? undefined : [...byteStrides],
    BigInt(first),
    BigInt(end),
  );
}

/** `data[0]` as an address (a bigint, or a non-negative safe integer), or undefined when it is neither. */
function addressOf(address: unknown): bigint | undefined {
  if (typeof address === 'bigint') return address;
  if (typeof address === 'number' && Number.isSafeInteger(address) && address >= 0) return BigInt(address);
  return undefined;
}

function readProducerStream(s: unknown): bigint | undefined {
  if (s === undefined || s === null) return undefined;
  if (s === 0 || s === 0n)
    throw new ProtocolError(
      'the CUDA array interface stream is 0, which version 3 forbids (1 is the legacy default stream, 2 the per-thread one)',
    );
  if (typeof s === 'bigint' && s > 0n && s < ADDRESS_LIMIT) return s;
  if (typeof s === 'number' && Number.isSafeInteger(s) && s > 0) return BigInt(s);
  throw new ProtocolError(
    `the CUDA array interface stream is ${formatValue(s)}; expected a positive integer, null or undefined`,
  );
}

function sameNumbers(given: unknown, known: readonly number[]): boolean {
  if (!Array.isArray(given) || given.length !== known.length) return false;
  for (let i = 0; i < known.length; i++) if (given[i] !== known[i]) return false;
  return true;
}

/**
 * `cai` read again, cheaply, when it has the form of `last` (the same
 * version range, typestr, shape and strides, which then need no new
 * checks): only its address, read-only flag and stream are read and checked.
 * `last` itself when they are unchanged too; undefined when the form differs
 * or anything is off (or a throw, for a bad stream), so that the caller reads
 * it in full (and gets the error that says what is wrong).
 */
function rereadLayout(cai: CudaArrayInterface, last: InterfaceLayout): InterfaceLayout | undefined {
  if (cai === null || typeof cai !== 'object') return undefined;
  const version: unknown = cai.version;
  if (typeof version !== 'number' || !(version >= 3)) return undefined;
  const mask: unknown = cai.mask;
  if ((mask !== undefined && mask !== null) || cai.typestr !== last.typestr || !sameNumbers(cai.shape, last.extents))
    return undefined;
  const data: unknown = cai.data;
  if (!Array.isArray(data) || data.length !== 2) return undefined;
  const ptr = addressOf(data[0]);
  const readOnly = Boolean(data[1]);
  if (ptr === undefined) return undefined;
  const strides: unknown = cai.strides;
  if (
    strides === null || strides === undefined
      ? last.byteStrides !== undefined
      : last.byteStrides === undefined || !sameNumbers(strides, last.byteStrides)
  )
    return undefined;
  const producerStream = readProducerStream(cai.stream);
  if (ptr === last.ptr && readOnly === last.readonly && producerStream === last.producerStream) return last;
  if (
    ptr < 0n ||
    ptr >= ADDRESS_LIMIT ||
    (last.end !== 0n && (ptr + last.first < 0n || ptr + last.end > ADDRESS_LIMIT))
  )
    return undefined;
  return last.moved(ptr, readOnly, producerStream);
}

const ANSWER_KEYS = ['version', 'mask', 'typestr', 'shape', 'data', 'strides', 'stream', 'descr'] as const;

/** The own data values of a frozen object (or array), or undefined when it is not frozen or a value is a getter. */
function frozenValues(obj: unknown, keys: readonly (string | number)[]): Record<string | number, unknown> | undefined {
  if (obj === null || typeof obj !== 'object' || !Object.isFrozen(obj)) return undefined;
  const out: Record<string | number, unknown> = {};
  for (const key of keys) {
    const d = Object.getOwnPropertyDescriptor(obj, key);
    if (d === undefined) continue;
    if (!('value' in d)) return undefined;
    out[key] = d.value;
  }
  return out;
}

function frozenArray(value: unknown): unknown[] | undefined {
  if (value === null || value === undefined || !Array.isArray(value)) return undefined;
  const n = frozenValues(value, ['length'])?.['length'];
  if (typeof n !== 'number' || n > 64) return undefined;
  const values = frozenValues(
    value,
    Array.from({ length: n }, (_, i) => i),
  );
  return values === undefined ? undefined : Array.from({ length: n }, (_, i) => values[i]);
}

/**
 * A plain copy of an answer that can never change, or undefined: the answer
 * and its `shape`, `data` and `strides` arrays frozen, every field a plain
 * data property (a getter could answer differently each time). Read through
 * property descriptors, which a Proxy of a frozen object cannot falsify, so
 * that the copy is what the answer holds for good.
 */
function immutableCopy(cai: unknown): CudaArrayInterface | undefined {
  const fields = frozenValues(cai, ANSWER_KEYS);
  if (fields === undefined) return undefined;
  const shape = frozenArray(fields['shape']);
  const data = frozenArray(fields['data']);
  const strides = fields['strides'];
  const stridesCopy = strides === null || strides === undefined ? strides : frozenArray(strides);
  if (shape === undefined || data === undefined || (stridesCopy === undefined && strides !== undefined))
    return undefined;
  return { ...fields, shape, data, strides: stridesCopy } as unknown as CudaArrayInterface;
}

/**
 * Reads the CUDA array interface answers of one producer, one after another
 * (one argument position of a kernel launch, say), as cheaply as they allow:
 * an answer of the same form as the last one (typestr, shape and strides)
 * is checked by comparison with it, and only its address and stream are read
 * anew; the same answer again, when it can never change (frozen, with its
 * arrays, as docs/protocols.md asks), is not read at all. Every answer is
 * checked as fully as `StridedMemoryView.fromCudaArrayInterface` checks it,
 * and a bad one is the same named error (a ProtocolError, an
 * InvalidLayoutError, ...).
 */
export class CudaArrayInterfaceReader {
  #last: InterfaceLayout | undefined;
  /** The answer `#last` was read from. */
  #answer: unknown;
  /** `#answer` can never change: `#last` holds for it for good. */
  #immutable = false;
  /** Whether `#answer` was already tried for immutability. */
  #tried = false;

  /**
   * The layout of `answer` (what `Symbol.for('cuda.array_interface')()`
   * returned): the same object as the last call returned when the answer
   * says the same, so that a caller can tell "unchanged" by identity.
   */
  read(answer: unknown): CudaArrayInterfaceLayout {
    const last = this.#last;
    if (last !== undefined) {
      if (answer === this.#answer) {
        if (this.#immutable) return last;
        if (!this.#tried) {
          // the same answer twice: one that can never change is not read again after this
          this.#tried = true;
          const copy = immutableCopy(answer);
          if (copy !== undefined) {
            const layout = this.#reread(copy, last);
            this.#immutable = true;
            return layout;
          }
        }
      } else {
        this.#answer = answer;
        this.#immutable = false;
        this.#tried = false;
      }
      return this.#reread(answer as CudaArrayInterface, last);
    }
    const layout = this.#readInFull(answer as CudaArrayInterface);
    this.#answer = answer;
    this.#immutable = false;
    this.#tried = false;
    this.#last = layout;
    return layout;
  }

  #reread(cai: CudaArrayInterface, last: InterfaceLayout): InterfaceLayout {
    let layout: InterfaceLayout | undefined;
    try {
      layout = rereadLayout(cai, last);
    } catch {
      layout = undefined; // a getter or a Proxy that threw: the full reading says so
    }
    layout ??= this.#readInFull(cai);
    this.#last = layout;
    return layout;
  }

  #readInFull(cai: CudaArrayInterface): InterfaceLayout {
    try {
      return readLayout(cai);
    } catch (error) {
      this.forget(); // nothing is known of a refused answer
      throw error;
    }
  }

  /** Forgets the last answer (the next one is read in full). */
  forget(): void {
    this.#last = undefined;
    this.#answer = undefined;
    this.#immutable = false;
    this.#tried = false;
  }
}

// Answers that can never change (see immutableCopy) are read once per object.
const layouts = new WeakMap<object, InterfaceLayout>();

/** @internal The layout of one answer, for `StridedMemoryView.fromCudaArrayInterface`: read once per answer that can never change. */
export function layoutOfAnswer(cai: CudaArrayInterface): CudaArrayInterfaceLayout {
  if (cai === null || typeof cai !== 'object' || !Object.isFrozen(cai)) return readLayout(cai);
  let layout = layouts.get(cai);
  if (layout === undefined) {
    const copy = immutableCopy(cai);
    layout = readLayout(copy ?? cai);
    if (copy !== undefined) layouts.set(cai, layout);
  }
  return layout;
}
