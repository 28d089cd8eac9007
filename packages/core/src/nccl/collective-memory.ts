import { DLDeviceType, formatValue, StridedMemoryView, type DType } from '@cuda-js/memory-view';
import { Buffer } from '../memory/buffer.js';
import type { Device } from '../device/device.js';
import { CollectiveArgumentError, DeviceMismatchError } from '../errors.js';

/** One memory argument of a collective: where it is, how many bytes, and its element type where it has one (a view's; a Buffer has none). */
export interface CollectiveMemory {
  readonly ptr: bigint;
  readonly byteLength: number;
  readonly dtype: DType | undefined;
  /** The Buffer or view, held by the call's CollectiveWork. */
  readonly source: object;
}

const HOST_MEMORY =
  'NCCL reads and writes device memory: this is host memory; copy it to a device Buffer (managed memory works too)';

/**
 * `arg` (a core Buffer, or anything memory-view views: StridedMemoryView,
 * DLPack, the CUDA array interface) as the memory of a collective of a
 * communicator on `device`, viewed for `consumer` (the call's stream, as
 * DLPack names it) so that its producer's work is ordered first. The memory
 * must be device memory of `device`, or managed memory, and dense.
 */
export function collectiveMemory(
  arg: unknown,
  role: string,
  device: Pick<Device, 'ordinal'>,
  consumer: bigint,
  writable: boolean,
  what: string,
): CollectiveMemory {
  if (arg instanceof Buffer) {
    const ptr = arg.ptr; // a ClosedResourceError for a closed Buffer
    if (arg.isHostAccessible && arg.device === undefined)
      throw new CollectiveArgumentError(`${what}: ${role}: ${HOST_MEMORY}`);
    if (!arg.isHostAccessible && arg.device?.ordinal !== device.ordinal) {
      throw new DeviceMismatchError(
        `${what}: ${role} lives on ${String(arg.device)}, but the communicator is on Device(${device.ordinal}); NCCL takes memory of its own device`,
      );
    }
    return { ptr, byteLength: arg.size, dtype: undefined, source: arg };
  }
  if (arg === null || typeof arg !== 'object')
    throw new CollectiveArgumentError(
      `${what}: ${role} must be a Buffer or an array (any viewable object), got ${formatValue(arg)}`,
    );
  let view: StridedMemoryView;
  try {
    view = StridedMemoryView.fromAny(arg, { stream: consumer, writable });
  } catch (error) {
    throw new CollectiveArgumentError(`${what}: ${role}: ${(error as Error).message}`, { cause: error });
  }
  const closed = closedOwner(arg, view);
  if (closed !== undefined) {
    throw new CollectiveArgumentError(
      `${what}: ${role} is memory of a closed ${closed}; its memory may already be given back (NCCL would read or write freed memory)`,
    );
  }
  if (view.ptr === undefined || !view.isDeviceAccessible)
    throw new CollectiveArgumentError(`${what}: ${role}: ${HOST_MEMORY}`);
  const { type, id } = view.device;
  if (type === DLDeviceType.CUDAHost) throw new CollectiveArgumentError(`${what}: ${role}: ${HOST_MEMORY}`);
  if (type === DLDeviceType.CUDA && id !== device.ordinal) {
    throw new DeviceMismatchError(
      `${what}: ${role} lives on Device(${id}), but the communicator is on Device(${device.ordinal}); NCCL takes memory of its own device`,
    );
  }
  if (!view.isCContiguous && !view.isFContiguous) {
    throw new CollectiveArgumentError(
      `${what}: ${role} is strided (shape [${view.shape.join(', ')}], strides [${view.strides.join(', ')}]); NCCL takes dense memory: copy it into a contiguous array`,
    );
  }
  return { ptr: view.ptr, byteLength: view.nbytes, dtype: view.dtype, source: view };
}

/**
 * The kind of the closed object that owns `view`'s memory, if one is: the
 * view itself, or a core Buffer or view it was exported from (a view of a
 * Buffer keeps the Buffer object, not its device memory, once the Buffer is closed).
 */
function closedOwner(arg: object, view: StridedMemoryView): string | undefined {
  let owner: unknown = view;
  for (let depth = 0; depth < 8 && owner !== null && typeof owner === 'object'; depth++) {
    if (owner instanceof Buffer) return owner.closed ? 'Buffer' : undefined;
    if (!(owner instanceof StridedMemoryView)) break;
    if (owner.closed) return 'StridedMemoryView';
    owner = owner.exporter;
  }
  return arg !== view && arg instanceof StridedMemoryView && arg.closed ? 'StridedMemoryView' : undefined;
}

/** The dtype of a call: `option` where given (views must agree), else the views', which must agree with each other. */
export function callDType(
  option: DType | undefined,
  memories: readonly (CollectiveMemory | undefined)[],
  what: string,
): DType {
  let found = option;
  for (const memory of memories) {
    const own = memory?.dtype;
    if (own === undefined) continue;
    if (found === undefined) found = own;
    else if (found !== own)
      throw new CollectiveArgumentError(
        `${what}: the arrays' dtypes differ (${found.name} and ${own.name}); NCCL moves one type`,
      );
  }
  if (found === undefined)
    throw new CollectiveArgumentError(
      `${what}: a Buffer has no element type: pass { dtype } (e.g. 'float32'), or pass a typed view of it`,
    );
  return found;
}

/** How many elements of `dtype` the memory holds; a whole number, or a {@link CollectiveArgumentError}. */
export function elementCount(memory: CollectiveMemory, dtype: DType, role: string, what: string): number {
  const count = memory.byteLength / dtype.itemsize;
  if (!Number.isInteger(count))
    throw new CollectiveArgumentError(
      `${what}: ${role} has ${memory.byteLength} bytes, not a whole number of ${dtype.name} elements`,
    );
  return count;
}

/**
 * Refuses `send` and `recv` ranges (the bytes the call reads and writes) that
 * overlap other than in NCCL's in-place form, where send starts at
 * `inPlaceSend` (recv itself for allReduce, broadcast and reduce; this rank's
 * block of recv for allGather; of send for reduceScatter): NCCL reads and
 * writes overlapping memory in no defined order, so such a call "completes"
 * with a wrong answer.
 */
export function checkCollectiveOverlap(
  sendPtr: bigint,
  sendBytes: number,
  recvPtr: bigint,
  recvBytes: number,
  inPlaceSend: bigint,
  form: string,
  what: string,
): void {
  if (sendBytes === 0 || recvBytes === 0) return;
  const sendEnd = sendPtr + BigInt(sendBytes);
  const recvEnd = recvPtr + BigInt(recvBytes);
  if (sendPtr >= recvEnd || recvPtr >= sendEnd || sendPtr === inPlaceSend) return;
  const range = (start: bigint, end: bigint) => `[0x${start.toString(16)}, 0x${end.toString(16)})`;
  throw new CollectiveArgumentError(
    `${what}: send ${range(sendPtr, sendEnd)} and recv ${range(recvPtr, recvEnd)} overlap, but not in place (${form}); NCCL's result over overlapping memory is undefined: pass the same memory, or memory apart`,
  );
}
