// One call of a ufunc (vectorize, guvectorize): its arguments read as
// operands (scalars, or arrays as StridedMemoryViews), host arrays staged
// on the device for a GPU run, outputs allocated or taken from `out`, and
// what was staged copied back and given back when the call ends.
import { Buffer, Device, DeviceArray, Scalar } from '@cuda-js/core';
import { isPlainObject } from '@cuda-js/options';
import { DLPACK, StridedMemoryView, type DType } from '@cuda-js/memory-view';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { checkJitOptions, UFUNC_CALL_OPTIONS } from '../jit-options.js';
import { KernelArgumentError } from '../errors.js';
import { dtypeOfScalar, kernelScalarOf, KERNEL_DTYPE_NAMES } from '../launch/kernel-dtype.js';
import { mayOverlapItself, memorySpan } from '../launch/memory-span.js';
import { ELEMENT_TYPES, type ElementArray } from '../simulate/element-types.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { JitTarget } from '../jit.js';

/** A scalar argument: its value and the type it has (a JS number is f64, a bigint i64, a boolean bool). */
export interface ScalarOperand {
  readonly kind: 'scalar';
  readonly value: number | bigint | boolean | Scalar;
  readonly dtype: ScalarName;
}

/** An array argument as a view, where the kernel can read it. */
export interface ArrayOperand {
  readonly kind: 'array';
  readonly view: StridedMemoryView;
  readonly dtype: ScalarName;
  /** Whether the caller's array is device memory (the result then stays on the device). */
  readonly onDevice: boolean;
}

export type Operand = ScalarOperand | ArrayOperand;

/** The options a ufunc call takes after its inputs. */
export interface UfuncCallOptions {
  /** Where the result goes (numba's `out=`); it must have the broadcast shape. Several for a guvectorize with several outputs. */
  readonly out?: unknown;
  /** The stream the work is ordered on (GPU); device results are then ready on it, host results are copied back before the call returns. */
  readonly stream?: StreamArgument | undefined;
}

/** What a ufunc gives: an array like its inputs (see vectorize's documentation). */
export type UfuncResult = ElementArray | StridedMemoryView | DeviceArray;

const OPTION_KEYS = new Set(['out', 'stream']);

/** Whether `value` is a plain options object (`{ out, stream }`), not an array. */
export function isCallOptions(value: unknown): value is UfuncCallOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.keys(value).every((k) => OPTION_KEYS.has(k));
}

/**
 * Refuses a last argument that is meant as the call options but misspells a
 * key (`{ strem }`): a plain object of string keys only (no array protocol),
 * one of them unknown. Anything else is left to the operand checks.
 */
export function refuseMisspeltCallOptions(value: unknown, name: string): void {
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return;
  checkJitOptions(`${name}()`, value, UFUNC_CALL_OPTIONS);
}

function scalarTypeOf(value: unknown): ScalarName | undefined {
  if (typeof value === 'number') return 'f64';
  if (typeof value === 'bigint') return 'i64';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Scalar) return value.type as ScalarName;
  return undefined;
}

/** Bytes of a compact host copy of `view` (its own memory when it is compact already). */
function compactBytes(view: StridedMemoryView): Uint8Array {
  const array = view.isCContiguous ? view.typedArray('read') : view.toTypedArray();
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * The state of one call: where it runs, the stream, the temporary device
 * buffers and the host outputs to fill when the kernels are done.
 */
export class UfuncRun {
  readonly name: string;
  readonly target: JitTarget;
  readonly stream: StreamArgument | undefined;
  /** The stream as a consumer names it to producers. */
  readonly #consumer: bigint;
  #device: Device | undefined;
  readonly #temporaries: Buffer[] = [];
  readonly #copyBacks: { readonly from: Buffer; readonly to: StridedMemoryView }[] = [];
  /** Views made here of DLPack exports: closed at the end, which gives each export back to its producer. */
  readonly #exports: StridedMemoryView[] = [];
  /** The arrays the caller gave, as given (before any staging), for the overlap check of the outputs. */
  readonly #given: {
    readonly what: string;
    readonly view: StridedMemoryView;
    readonly cells: boolean;
    readonly output: boolean;
  }[] = [];

  constructor(name: string, target: JitTarget, stream: StreamArgument | undefined) {
    this.name = name;
    this.target = target;
    this.stream = stream;
    this.#consumer = stream === undefined ? 0n : streamHandle(stream, `${name}: stream`);
    // (the simulator runs at once: a stream orders nothing there, and is taken so that GPU code runs unchanged)
  }

  /** The device of a GPU run: the current one (the first, made current, where none is). */
  get device(): Device {
    return (this.#device ??= Device.current() ?? Device.get(0).setCurrent());
  }

  /**
   * Reads input `index` (`what` names it): a scalar, or an array viewed for
   * the kernel (a host array used in place in the simulator, copied to the
   * device for the GPU).
   *
   * @throws {KernelArgumentError} for a value that is neither, an unsupported dtype, or device memory in the simulator
   */
  input(arg: unknown, what: string, cells = true): Operand {
    const scalar = scalarTypeOf(arg);
    if (scalar !== undefined) return { kind: 'scalar', value: arg as ScalarOperand['value'], dtype: scalar };
    const view = this.#view(arg, what, false);
    this.#given.push({ what, view, cells, output: false });
    const dtype = this.#dtypeOf(view.dtype, what);
    // a DeviceArray counts as device memory in the simulator too (its arrays there are host memory)
    const onDevice = view.buffer === undefined || arg instanceof DeviceArray;
    if (this.target === 'simulator')
      return { kind: 'array', view: this.#simulatorReadable(view, what), dtype, onDevice };
    return { kind: 'array', view: view.buffer === undefined ? view : this.#staged(view), dtype, onDevice };
  }

  /**
   * The caller's `out`, viewed where the kernel writes it (a host array in
   * the simulator; on the GPU, device memory or a device buffer copied into
   * it at the end). Read the inputs first: an `out` that shares memory with
   * one is refused, unless it is that input's elements exactly and both are
   * `cells` (each element read and written by one thread, as in place).
   *
   * @throws {KernelArgumentError} for an `out` whose elements overlap each other, an input's (other than in place) or another output's
   */
  output(out: unknown, what: string, cells = true): ArrayOperand {
    const view = this.#view(out, what, true);
    this.#refuseOverlap(view, what, cells);
    this.#given.push({ what, view, cells, output: true });
    const dtype = this.#dtypeOf(view.dtype, what);
    const onDevice = view.buffer === undefined;
    if (this.target === 'simulator')
      return { kind: 'array', view: this.#simulatorReadable(view, what), dtype, onDevice };
    if (onDevice) return { kind: 'array', view, dtype, onDevice };
    const staging = this.#allocate(view.nbytes);
    this.#copyBacks.push({ from: staging, to: view });
    return {
      kind: 'array',
      view: StridedMemoryView.fromPointer(staging.ptr, { dtype: view.dtype, shape: view.shape, exporter: staging }),
      dtype,
      onDevice,
    };
  }

  /**
   * A new output of `shape` and `dtype`: a DeviceArray where `onDevice`
   * (an input was device memory; in the simulator, a DeviceArray over host
   * memory), else host memory (on the GPU, filled from a device buffer at
   * the end of the call).
   */
  allocate(
    shape: readonly number[],
    dtype: ScalarName,
    onDevice: boolean,
  ): { readonly operand: ArrayOperand; readonly result: UfuncResult } {
    const size = shape.reduce((a, b) => a * b, 1);
    const t = dtypeOfScalar(dtype);
    if (this.target === 'gpu' && onDevice) {
      const array = DeviceArray.allocate(shape, t, { device: this.device, stream: this.stream });
      return { operand: { kind: 'array', view: array.view, dtype, onDevice: true }, result: array };
    }
    let host: ElementArray;
    try {
      host = new ELEMENT_TYPES[dtype].arrayConstructor(size);
    } catch (error) {
      throw new KernelArgumentError(
        `${this.name}: a result of shape [${shape.join(', ')}] (${size} elements of ${dtype}) cannot be allocated as host memory (${(error as Error).message})`,
        undefined,
        { cause: error },
      );
    }
    const hostView = StridedMemoryView.fromBuffer(host, { dtype: t, shape });
    if (onDevice)
      return { operand: { kind: 'array', view: hostView, dtype, onDevice: true }, result: new DeviceArray(hostView) };
    // a typed array where one holds this dtype's values (f16, bf16 and bool arrays are their bits or bytes: a view says what they are)
    const plain = shape.length === 1 && ELEMENT_TYPES[dtype].bits === undefined && dtype !== 'bool';
    const result: UfuncResult = plain ? host : hostView;
    if (this.target === 'simulator')
      return { operand: { kind: 'array', view: hostView, dtype, onDevice: false }, result };
    return { operand: this.output(hostView, 'the result'), result };
  }

  /** Ends the call: host outputs get their elements from the device (after the stream's work), temporaries go back. */
  finish(): void {
    try {
      for (const { from, to } of this.#copyBacks) {
        if (to.isCContiguous) {
          const bytes = to.typedArray();
          from.copyTo(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { stream: this.stream });
        } else {
          const compact = new Uint8Array(from.size);
          from.copyTo(compact, { stream: this.stream });
          to.copyFrom(StridedMemoryView.fromBuffer(compact, { dtype: to.dtype, shape: to.shape }));
        }
      }
    } finally {
      this.release();
    }
  }

  /** Gives the temporaries back (stream-ordered), without copying anything. */
  release(): void {
    for (const buffer of this.#temporaries) buffer.close({ stream: this.stream });
    this.#temporaries.length = 0;
    for (const view of this.#exports) view.close();
    this.#exports.length = 0;
    this.#copyBacks.length = 0;
  }

  #refuseOverlap(out: StridedMemoryView, what: string, cells: boolean): void {
    if (mayOverlapItself(out.shape, out.strides)) {
      throw new KernelArgumentError(
        `${this.name}: ${what} has shape [${out.shape.join(', ')}] and strides [${out.strides.join(', ')}]: two of its indices are one element, which threads would write in no defined order; pass an array whose elements are apart`,
      );
    }
    for (const given of this.#given) {
      if (!overlaps(out, given.view)) continue;
      if (!given.output && cells && given.cells && sameElements(out, given.view)) continue;
      const form = given.output
        ? ''
        : cells && given.cells
          ? ' other than in place (the same elements, in the same layout)'
          : ' (an operand with core dimensions is read whole by each thread)';
      throw new KernelArgumentError(
        `${this.name}: ${what} shares memory with ${given.what}${form}, so a thread could read an element that another has written; pass a copy of ${given.what}, or an ${what} apart from it`,
      );
    }
  }

  /** `view`, where the simulator can reach it: memory in a JS buffer. */
  #simulatorReadable(view: StridedMemoryView, what: string): StridedMemoryView {
    if (view.buffer !== undefined) return view;
    throw new KernelArgumentError(
      `${this.name}: ${what} is memory at an address (device memory), which the simulator cannot reach (it runs on the CPU); copy it to the host`,
    );
  }

  #allocate(bytes: number): Buffer {
    const buffer = this.device.allocate(Math.max(1, bytes), { stream: this.stream });
    this.#temporaries.push(buffer);
    return buffer;
  }

  /** A device copy of a host view (compact, same shape). */
  #staged(view: StridedMemoryView): StridedMemoryView {
    const bytes = compactBytes(view);
    const buffer = this.#allocate(bytes.byteLength);
    if (bytes.byteLength > 0) buffer.copyFrom(bytes, { stream: this.stream });
    return StridedMemoryView.fromPointer(buffer.ptr, {
      dtype: view.dtype,
      shape: view.shape,
      exporter: buffer,
      readonly: true,
      stream: this.#consumer,
    });
  }

  #view(arg: unknown, what: string, writable: boolean): StridedMemoryView {
    if (arg === null || typeof arg !== 'object') {
      throw new KernelArgumentError(
        `${this.name}: ${what} must be ${writable ? 'an array' : 'a number, bigint, boolean, typed scalar or array'}, got ${arg === null ? 'null' : typeof arg}`,
      );
    }
    if (Array.isArray(arg))
      throw new KernelArgumentError(
        `${this.name}: ${what} is a JS Array; pass a typed array (Float32Array.from(values), ...) or a device array`,
      );
    if (arg instanceof Buffer)
      throw new KernelArgumentError(
        `${this.name}: ${what} is a Buffer, bytes with no element type; pass a typed view of it`,
      );
    const given = arg instanceof DeviceArray ? arg.view : arg;
    if (given instanceof StridedMemoryView) {
      if (given.closed) throw new KernelArgumentError(`${this.name}: ${what} is a closed view`);
      if (writable && given.readonly) throw new KernelArgumentError(`${this.name}: ${what} is read-only`);
      return given;
    }
    try {
      const view = StridedMemoryView.fromAny(arg, { stream: this.#consumer, writable });
      if (DLPACK in arg) this.#exports.push(view);
      return view;
    } catch (error) {
      throw new KernelArgumentError(
        `${this.name}: ${what} is not an array that cuda-js can view (${(error as Error).message})`,
        undefined,
        { cause: error },
      );
    }
  }

  #dtypeOf(t: DType, what: string): ScalarName {
    const scalar = kernelScalarOf(t);
    if (scalar === undefined)
      throw new KernelArgumentError(
        `${this.name}: ${what} holds ${t.name}; ufuncs take ${KERNEL_DTYPE_NAMES.join(', ')}`,
      );
    return scalar;
  }
}

/** The memory of `view` (its JS buffer, or memory at an address) and the bytes its elements span, [start, end). */
function bytesOf(view: StridedMemoryView): {
  readonly memory: ArrayBufferLike | 'address';
  readonly origin: bigint;
  readonly start: bigint;
  readonly end: bigint;
} {
  const origin = view.buffer === undefined ? view.ptr! : BigInt(view.byteOffset);
  const span = memorySpan(view.shape, view.strides, view.itemsize);
  const start = origin + BigInt(span.first * view.itemsize);
  return { memory: view.buffer ?? 'address', origin, start, end: start + BigInt(span.bytes) };
}

/** Whether two views share a byte. */
function overlaps(a: StridedMemoryView, b: StridedMemoryView): boolean {
  const x = bytesOf(a);
  const y = bytesOf(b);
  return x.memory === y.memory && x.start < x.end && y.start < y.end && x.start < y.end && y.start < x.end;
}

/** Whether two views are the same elements in the same layout (one thread reads and writes each, in place). */
function sameElements(a: StridedMemoryView, b: StridedMemoryView): boolean {
  const x = bytesOf(a);
  const y = bytesOf(b);
  return (
    x.memory === y.memory &&
    x.origin === y.origin &&
    a.itemsize === b.itemsize &&
    sameNumbers(a.shape, b.shape) &&
    sameNumbers(a.strides, b.strides)
  );
}

/** A view of the memory of `base` (its element 0 as element 0) with another shape and strides: a broadcast or merged reading of it. */
export function restrided(
  base: StridedMemoryView,
  shape: readonly number[],
  strides: readonly number[],
): StridedMemoryView {
  // the common case (a compact 1-D operand read at the flat index) is the view itself: no new view per call
  if (sameNumbers(base.shape, shape) && sameNumbers(base.strides, strides)) return base;
  return new StridedMemoryView({
    ...(base.buffer !== undefined ? { buffer: base.buffer, byteOffset: base.byteOffset } : { ptr: base.ptr! }),
    shape,
    strides,
    dtype: base.dtype,
    device: base.device,
    flags: base.flags,
    exporter: base,
    ...(base.stream !== undefined ? { stream: base.stream } : {}),
  });
}

/** Whether two shapes (or two stride lists) are equal. */
export function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The scalar argument of a kernel parameter, as the signature's type where there is one. */
export function scalarArgument(
  operand: Operand & { kind: 'scalar' },
  to: ScalarName | undefined,
  what: string,
): unknown {
  const v = operand.value;
  if (to === undefined || v instanceof Scalar) return v;
  return typedScalar(
    to,
    typeof v === 'boolean' ? Number(v) : to === 'i64' || to === 'u64' ? BigInt(v) : Number(v),
    what,
  );
}

/**
 * `value` as a typed scalar of `to` for a kernel parameter, `what` naming it
 * (`ufunc: input 2`): a KernelArgumentError where `to` does not hold it (a
 * fraction for an integer type, a value out of its range), not the
 * RangeError or TypeError of a scalar maker the caller never called.
 */
export function typedScalar(to: ScalarName, value: number | bigint, what: string): Scalar {
  try {
    return Scalar.of(to, value);
  } catch (error) {
    throw new KernelArgumentError(
      `${what} is ${String(value)}, which ${to} does not hold (${(error as Error).message})`,
      undefined,
      { cause: error },
    );
  }
}

/** A kernel function made of generated text (the text is the kernel; the function object only carries it to the parser). */
export function kernelFunction(text: string): (...args: never[]) => unknown {
  // the kernel is the text; the function object only carries it to the parser
  return new Function(`return (${text});`)() as (...args: never[]) => unknown;
}
